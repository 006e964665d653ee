package codec

import (
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"os"
	"sort"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// Input is one segment to pack: a name and the entries it preserves.
type Input struct {
	Name    string
	Entries []bundle.Entry
}

// SealOptions tune packing.
type SealOptions struct {
	// TempDir holds spool files; defaults to os.TempDir().
	TempDir string
	// Level is the gzip level; defaults to bundle.DefaultLevel.
	Level int
}

// Sealed is a packed, encrypted segment waiting in a spool file, ready to
// be erasure-coded. Close removes the spool file.
type Sealed struct {
	Name    string
	Kind    block.Kind
	Cipher  keys.Cipher
	ID      manifest.Digest // SHA-256 of the exact ciphertext
	Length  int64           // exact ciphertext length
	TarSize int64           // uncompressed tar size (data segments)
	TarHash manifest.Digest // SHA-256 of the tar: equal tars mean unchanged content
	Files   []manifest.File // listing entries, in tar order (data segments)

	spool *os.File
}

// Seal packs a data segment and encrypts it with s into a spool file.
func Seal(in Input, s *keys.Sealer, opts SealOptions) (*Sealed, error) {
	if err := CheckSegmentName(in.Name); err != nil {
		return nil, err
	}
	files := make([]manifest.File, len(in.Entries))
	entries := hashingEntries(in.Name, in.Entries, files)
	var stats bundle.Stats
	out, err := seal(in.Name, block.KindData, s, opts, func(w io.Writer) error {
		var err error
		stats, err = bundle.Write(w, entries, bundle.WriteOptions{Level: opts.Level})
		return err
	})
	if err != nil {
		return nil, err
	}
	empty := manifest.Digest(sha256.Sum256(nil))
	for i := range files {
		if files[i].Type == bundle.TypeRegular.String() && files[i].SHA256 == nil && files[i].Size == 0 {
			files[i].SHA256 = &empty
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	out.TarSize, out.TarHash, out.Files = stats.TarSize, stats.TarSHA256, files
	return out, nil
}

// sealBytes encrypts raw bytes as a segment of the given kind (the listing).
func sealBytes(name string, kind block.Kind, data []byte, s *keys.Sealer, opts SealOptions) (*Sealed, error) {
	return seal(name, kind, s, opts, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

func seal(name string, kind block.Kind, s *keys.Sealer, opts SealOptions, write func(io.Writer) error) (*Sealed, error) {
	f, err := os.CreateTemp(opts.TempDir, "lazarus-seal-*")
	if err != nil {
		return nil, fmt.Errorf("segment %q: creating spool file: %w", name, err)
	}
	os.Remove(f.Name()) // unlinked: vanishes with the process even on a crash
	out := &Sealed{Name: name, Kind: kind, Cipher: s.Cipher, spool: f}
	if err := out.fill(s, write); err != nil {
		f.Close()
		return nil, fmt.Errorf("segment %q: %w", name, err)
	}
	return out, nil
}

func (out *Sealed) fill(s *keys.Sealer, write func(io.Writer) error) error {
	h := sha256.New()
	cw := &counter{w: io.MultiWriter(out.spool, h)}
	enc, err := s.Encrypt(cw)
	if err != nil {
		return err
	}
	if err := write(enc); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	copy(out.ID[:], h.Sum(nil))
	out.Length = cw.n
	return nil
}

// Close removes the spool file.
func (s *Sealed) Close() error { return s.spool.Close() }

type counter struct {
	w io.Writer
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// hashingEntries wraps every regular entry so that its SHA-256 lands in
// files[i] as the bundle writer reads it, and fills the other listing fields.
func hashingEntries(segment string, in []bundle.Entry, files []manifest.File) []bundle.Entry {
	out := make([]bundle.Entry, len(in))
	for i, e := range in {
		f := &files[i]
		*f = manifest.File{Segment: segment, Path: e.Name, Mode: fmt.Sprintf("%04o", e.UnixMode()),
			MTime: e.ModTime.UTC(), Size: e.Size, Link: e.Linkname, Type: e.Type.String()}
		out[i] = e
		if e.Type == bundle.TypeRegular && e.Open != nil {
			open := e.Open
			out[i].Open = func() (io.ReadCloser, error) {
				rc, err := open()
				if err != nil {
					return nil, err
				}
				return &hashReader{rc: rc, h: sha256.New(), dst: f}, nil
			}
		}
	}
	return out
}

type hashReader struct {
	rc  io.ReadCloser
	h   hash.Hash
	dst *manifest.File
}

func (r *hashReader) Read(p []byte) (int, error) {
	n, err := r.rc.Read(p)
	r.h.Write(p[:n])
	return n, err
}

func (r *hashReader) Close() error {
	var d manifest.Digest
	copy(d[:], r.h.Sum(nil))
	r.dst.SHA256 = &d
	return r.rc.Close()
}
