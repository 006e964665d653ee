package injector

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// stateVersion is the version of state.json; a newer one is refused.
// Version 2 keys the content hashes (see stateKey); a version 1 state is
// migrated by the next run (state.migrate), older programs refuse version 2.
const stateVersion = 2

// state is what inject remembers between runs, in the state directory:
// state.json plus one ciphertext file per live segment version under
// segments/, so unchanged segments re-encode to byte-identical blocks.
type state struct {
	Version     int                 `json:"version"`
	Site        string              `json:"site"`
	Salt        []byte              `json:"salt,omitempty"`  // passphrase mode: the site's signer salt
	Generations []generationInfo    `json:"generations"`     // newest first: current, then kept previous ones
	Dumps       map[string]dumpInfo `json:"dumps,omitempty"` // last output of each dump
	// Held names, by segment, the earlier generation held on the pages
	// because the segment shrank since (see checkShrink).
	Held map[string]manifest.ID `json:"held,omitempty"`
}

// generationInfo is one generation as inject built it.
type generationInfo struct {
	ID        manifest.ID           `json:"id"`
	Time      time.Time             `json:"time"`
	Envelope  []byte                `json:"envelope"`  // the signed manifest
	Segments  []segmentInfo         `json:"segments"`  // the listing segment included
	Pages     map[string][]blockRef `json:"pages"`     // URL → blocks of this generation it carries
	Manifests []string              `json:"manifests"` // URLs that carry the manifest
}

// segmentInfo is one segment version of a generation.
type segmentInfo struct {
	manifest.Segment
	Cipher  uint8           `json:"cipher"`
	TarMAC  manifest.Digest `json:"tar_mac"`           // keyed hash of the tar (see stateKey): equal means unchanged content
	TarHash manifest.Digest `json:"tar_hash,omitzero"` // version 1 only: the plain SHA-256, migrated to TarMAC
	Source  string          `json:"source"`            // what it preserves, for reports
	Signer  string          `json:"signer"`            // signer key id, empty if unsigned
	// Substance is the keyed hash of the segment's content without the
	// volatile lines of its dumps (see segmentSubstance); zero for a
	// segment without volatile dumps. Equal means unchanged in substance.
	Substance manifest.Digest `json:"substance,omitzero"`
	// Listed is the listing entries of the segment's volatile dumps,
	// sealed under the state key (see sealListed), for a segment with a
	// Substance: a run that keeps the segment lists them.
	Listed []byte `json:"listed,omitempty"`
}

// blockRef is a manifest.BlockRef in state.json.
type blockRef = manifest.BlockRef

func (g *generationInfo) segment(name string) *segmentInfo {
	for i := range g.Segments {
		if g.Segments[i].Name == name {
			return &g.Segments[i]
		}
	}
	return nil
}

func (s *state) current() *generationInfo {
	if len(s.Generations) == 0 {
		return nil
	}
	return &s.Generations[0]
}

func loadState(dir string) (*state, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if errors.Is(err, os.ErrNotExist) {
		return &state{Version: stateVersion}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading state: %w", err)
	}
	var s state
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("state %s is damaged: %w", filepath.Join(dir, "state.json"), err)
	}
	if s.Version < 1 || s.Version > stateVersion {
		return nil, fmt.Errorf("state %s has version %d; this program understands 1 to %d", filepath.Join(dir, "state.json"), s.Version, stateVersion)
	}
	return &s, nil
}

// segmentPath is where a segment version's ciphertext is kept.
func segmentPath(dir string, id manifest.Digest) string {
	return filepath.Join(dir, "segments", id.String())
}
