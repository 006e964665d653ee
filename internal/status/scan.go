package status

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"net/url"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/site"
)

// statusShard is one verified block a capture holds.
type statusShard struct {
	Seg    manifest.SegmentKey
	Stripe uint32
	Shard  uint16
}

// statusLayout is what a block's header says about its segment version.
type statusLayout struct {
	ID         manifest.Digest
	Name       string
	Kind       block.Kind
	Generation manifest.ID
	Time       int64
	K          int
	M          int
	Stripes    int
}

// statusScanVersion is the cache record's format. Version 2 keeps the
// verified blocks whole, so that everything counted (segment, stripe,
// shard) is covered by the signature checked again on reload. Version 3
// entries under a digest alone were scanned from bytes with that digest:
// a version 2 entry may hold what another archive served under it.
const statusScanVersion = 3

// statusScan is what one capture holds: verified manifests and blocks,
// and how many comments were refused. It is also the cache's record:
// only the signed envelopes and blocks are stored, and everything else
// is derived from them again when it is read back.
type statusScan struct {
	Version   int      `json:"v"`
	Manifests [][]byte `json:"manifests,omitempty"` // verified envelopes
	Raw       [][]byte `json:"blocks,omitempty"`    // verified blocks, whole
	Rejected  int      `json:"rejected,omitempty"`
	// Foreign counts the rejected comments signed by another key.
	Foreign   int  `json:"foreign,omitempty"`
	Truncated bool `json:"truncated,omitempty"`
	// Links are the pages (canonicalPage) the page links to, at most
	// maxScanLinks: what Status walks to learn the pages' link depth.
	// Only links to pages the history or a listing knows are kept.
	Links    []string `json:"links,omitempty"`
	Problems []string `json:"problems,omitempty"`

	manifests []*manifest.Signed // parsed Manifests
	Layouts   []statusLayout     `json:"-"` // segment versions of Blocks, each once
	Blocks    []statusShard      `json:"-"` // parsed Raw, each position once
	positions map[statusShard]bool
}

// maxScanProblems bounds the problems one scan keeps.
const maxScanProblems = 8

// maxScanLinks bounds the links one scan keeps.
const maxScanLinks = 1000

// pageLinks are the site paths a page links to, at most maxScanLinks:
// site.Inspect's links, read from the page as archived at pageURL.
func pageLinks(page []byte, pageURL *url.URL) []string {
	links := site.Inspect(page, pageURL).Links
	return links[:min(len(links), maxScanLinks)]
}

// scanStatus reads a page's Lazarus comments: blocks and manifests that
// parse and verify with v are kept, each once (a page repeating one
// carrier holds its blocks once, and costs one check of each), the rest
// counted as rejected. cut reports that the page was cut at the fetch
// limit.
func scanStatus(page []byte, v *keys.Verifier, cut bool) *statusScan {
	sc := &statusScan{Version: statusScanVersion, Truncated: cut}
	layouts := map[manifest.SegmentKey]bool{}
	seen := map[[sha256.Size]byte]bool{} // comments read, by payload
	for f := range htmlblock.All(page) {
		if f.Err == nil {
			h := sha256.Sum256(f.Payload)
			if seen[h] {
				continue // a copy of a comment read: it holds nothing more
			}
			seen[h] = true
		}
		var err error
		switch {
		case f.Err != nil:
			err = f.Err
			if f.End >= len(page) {
				sc.Truncated = true
			}
		case f.Kind == htmlblock.KindManifest:
			err = sc.manifest(f.Payload, v)
		case f.Kind == htmlblock.KindBlock:
			err = sc.block(f.Payload, v, layouts)
		default:
			err = fmt.Errorf("unexpected comment kind %q", f.Kind)
		}
		if err != nil {
			sc.reject(fmt.Errorf("comment at byte %d: %w", f.Offset, err))
		}
	}
	return sc
}

func (sc *statusScan) reject(err error) {
	sc.Rejected++
	if errors.Is(err, keys.ErrUnknownSigner) {
		sc.Foreign++
	}
	if len(sc.Problems) < maxScanProblems {
		sc.Problems = append(sc.Problems, err.Error())
	}
}

func (sc *statusScan) manifest(payload []byte, v *keys.Verifier) error {
	m, err := verifiedManifest(payload, v)
	if err != nil {
		return err
	}
	for _, old := range sc.manifests {
		if old.Digest == m.Digest {
			return nil
		}
	}
	sc.Manifests = append(sc.Manifests, append([]byte(nil), payload...))
	sc.manifests = append(sc.manifests, m)
	return nil
}

// verifiedManifest parses a manifest envelope and checks its signature.
func verifiedManifest(payload []byte, v *keys.Verifier) (*manifest.Signed, error) {
	m, err := manifest.Parse(payload)
	if err != nil {
		return nil, err
	}
	if err := v.Verify(m.KeyID, m.Salt, "manifest", m.Digest[:], m.Signature[:]); err != nil {
		return nil, fmt.Errorf("manifest of generation %s: %w", m.Manifest.Generation, err)
	}
	return m, nil
}

// block parses and verifies one block and keeps it.
func (sc *statusScan) block(payload []byte, v *keys.Verifier, layouts map[manifest.SegmentKey]bool) error {
	b, err := block.Parse(payload)
	if err != nil {
		return err
	}
	k := manifest.SegmentKey{ID: b.SegmentID, Name: b.Name}
	pos := statusShard{Seg: k, Stripe: b.Stripe, Shard: b.Shard}
	if sc.positions[pos] {
		return nil // a verified block holds this position: one counts
	}
	if err := v.Verify(b.KeyID, b.Salt, "block", b.Digest[:], b.Signature[:]); err != nil {
		return fmt.Errorf("block %s/%d/%d: %w", b.Name, b.Stripe, b.Shard, err)
	}
	if sc.positions == nil {
		sc.positions = map[statusShard]bool{}
	}
	sc.positions[pos] = true
	if !layouts[k] {
		layouts[k] = true
		sc.Layouts = append(sc.Layouts, statusLayout{ID: b.SegmentID, Name: b.Name, Kind: b.Kind, Generation: b.Generation,
			Time: b.Time, K: int(b.K), M: int(b.M), Stripes: int(b.Stripes())})
	}
	sc.Blocks = append(sc.Blocks, pos)
	sc.Raw = append(sc.Raw, append([]byte(nil), payload...))
	return nil
}

// check re-verifies a scan read from the cache and fills its parsed
// fields: every manifest and block is parsed and its signature checked
// again, as when the capture was scanned. An entry of another format, or
// with anything that does not verify, is refused whole.
func (sc *statusScan) check(v *keys.Verifier) error {
	if sc.Version != statusScanVersion {
		return fmt.Errorf("cache entry format %d, want %d", sc.Version, statusScanVersion)
	}
	if sc.Rejected < 0 || sc.Foreign < 0 || sc.Foreign > sc.Rejected {
		return errors.New("bad rejected or foreign count")
	}
	if len(sc.Links) > maxScanLinks {
		return fmt.Errorf("%d links, at most %d", len(sc.Links), maxScanLinks)
	}
	for _, p := range sc.Manifests {
		m, err := verifiedManifest(p, v)
		if err != nil {
			return err
		}
		sc.manifests = append(sc.manifests, m)
	}
	raw := sc.Raw
	sc.Raw, sc.Blocks, sc.Layouts, sc.positions = nil, nil, nil, nil
	layouts := map[manifest.SegmentKey]bool{}
	for _, p := range raw {
		if err := sc.block(p, v, layouts); err != nil {
			return err
		}
	}
	return nil
}
