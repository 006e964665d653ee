package codec

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// Save copies the sealed ciphertext to path (via a temporary file and a
// rename, so path is either absent or complete).
func (s *Sealed) Save(path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".segment-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = io.Copy(tmp, io.NewSectionReader(s.spool, 0, s.Length))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("saving segment %q: %w", s.Name, err)
	}
	return os.Rename(tmp.Name(), path)
}

// Load reopens a ciphertext saved with Save as a Sealed segment, checking
// that it still hashes to id. Close releases it.
func Load(path, name string, kind block.Kind, cipher keys.Cipher, id manifest.Digest) (*Sealed, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("segment %q: %w", name, err)
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("segment %q: reading %s: %w", name, path, err)
	}
	if manifest.Digest(h.Sum(nil)) != id {
		f.Close()
		return nil, fmt.Errorf("segment %q: %s does not match its id %s (damaged state?)", name, path, id)
	}
	return &Sealed{Name: name, Kind: kind, Cipher: cipher, ID: id, Length: n, spool: f}, nil
}
