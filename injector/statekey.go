package injector

import (
	"bytes"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// stateKeyFile holds the random state key of keyless public runs.
const stateKeyFile = "state.key"

// stateKeyInfo is the HKDF info that derives the state key from a signing
// seed, separating it from every other use of the seed.
const stateKeyInfo = "lazarus state hashes v1"

// Labels of the keyed hashes, one per kind of content.
const (
	labelTar       = "tar"
	labelDump      = "dump"
	labelSubstance = "substance" // a dump's output or a segment without volatile lines
	labelListed    = "listed"    // the key that seals a segment's listing entries
)

// stateKey keys the content hashes kept in state.json (dump outputs and
// segment tars). A plain SHA-256 there would let anyone who reads the
// state (Caddy's storage holds it) confirm guesses of low-entropy content
// offline, such as a database holding only "hunter2"; an HMAC-SHA256 needs
// the key too.
type stateKey []byte

// loadStateKey returns the state key of a run: derived with HKDF-SHA256
// from the signing seed when the run signs (server key, passphrase, public
// with a key), else the random key in the state directory's state.key.
// On a keyless public run's first use there is none yet: it returns a new
// random key and fresh=true, and commit saves it.
func (o *Options) loadStateKey(sealer *keys.Sealer) (k stateKey, fresh bool, err error) {
	if sealer.Signer != nil {
		k, err := hkdf.Key(sha256.New, sealer.Signer.Seed(), nil, stateKeyInfo, sha256.Size)
		return stateKey(k), false, err
	}
	path := filepath.Join(o.StateDir, stateKeyFile)
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		k = make(stateKey, sha256.Size)
		rand.Read(k)
		return k, true, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading state key: %w", err)
	}
	k, err = hex.DecodeString(string(bytes.TrimSpace(raw)))
	if err != nil || len(k) != sha256.Size {
		return nil, false, fmt.Errorf("state key %s is damaged: want %d hex digits", path, 2*sha256.Size)
	}
	return k, false, nil
}

// save writes a new state key into the state directory with mode 0600;
// an existing file is never replaced.
func (k stateKey) save(stateDir string) error {
	path := filepath.Join(stateDir, stateKeyFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("writing state key: %w", err)
	}
	_, err = fmt.Fprintf(f, "%x\n", []byte(k))
	if err := errors.Join(err, f.Sync(), f.Close()); err != nil {
		os.Remove(path)
		return fmt.Errorf("writing state key: %w", err)
	}
	return nil
}

// sum returns HMAC-SHA256(k, label ‖ 0x00 ‖ digest): the keyed form of a
// content's SHA-256.
func (k stateKey) sum(label string, digest []byte) []byte {
	m := hmac.New(sha256.New, k)
	m.Write([]byte(label))
	m.Write([]byte{0})
	m.Write(digest)
	return m.Sum(nil)
}

// tarMAC returns the keyed hash of a segment's tar from its SHA-256; the
// zero digest (no tar: a listing segment) stays zero.
func (k stateKey) tarMAC(tarSHA256 manifest.Digest) manifest.Digest {
	var out manifest.Digest
	if tarSHA256 != out {
		copy(out[:], k.sum(labelTar, tarSHA256[:]))
	}
	return out
}

// migrate turns a version 1 state's plain hashes into keyed ones, exactly
// as this version computes them, so nothing counts as changed, and marks
// the state current; the next commit writes it without plain hashes.
func (s *state) migrate(k stateKey) {
	if s.Version >= stateVersion {
		return
	}
	for gi := range s.Generations {
		for si := range s.Generations[gi].Segments {
			seg := &s.Generations[gi].Segments[si]
			seg.TarMAC, seg.TarHash = k.tarMAC(seg.TarHash), manifest.Digest{}
		}
	}
	for name, d := range s.Dumps {
		if len(d.SHA256) > 0 {
			d.MAC, d.SHA256 = k.sum(labelDump, d.SHA256), nil
			s.Dumps[name] = d
		}
	}
	s.Version = stateVersion
}
