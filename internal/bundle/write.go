package bundle

import (
	"archive/tar"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
)

// DefaultLevel is the gzip level used when WriteOptions.Level is zero. It
// favours throughput: levels 1 to 3 of klauspost/compress run at about the
// same speed (several times faster than gzip -6), and 3 compresses text
// about 5% better than 1; levels 4 and up cost 15-30% more time for 4-10%
// smaller output (see BenchmarkWrite_64MiB).
const DefaultLevel = 3

// copyBufferSize is the size of the buffer file contents are copied with.
const copyBufferSize = 64 << 10

// WriteOptions tunes Write.
type WriteOptions struct {
	// Level is the gzip compression level, 1 (fastest) to 9 (smallest);
	// defaults to DefaultLevel when zero.
	Level int
}

// Stats describes a payload produced by Write.
type Stats struct {
	Files       int      // regular files
	Dirs        int      // directories
	Symlinks    int      // symbolic links
	Bytes       int64    // total content bytes of regular files
	TarSize     int64    // exact length of the uncompressed tar stream
	TarSHA256   [32]byte // SHA-256 of the uncompressed tar stream
	PayloadSize int64    // bytes written to w, header included
}

// TarSize returns the exact length of the tar stream Write would produce
// for entries, without opening any file.
func TarSize(entries []Entry) (int64, error) {
	_, size, err := prepare(entries)
	return size, err
}

// Write packs entries into a payload written to w: the header, then the
// gzip-compressed tar stream. Entries are written sorted by tar name, so
// the same entries always give the same bytes; the input slice is not
// modified. Memory use does not depend on the size of the input.
//
// Each regular file is opened once and must yield exactly Size bytes;
// otherwise Write fails with an error wrapping ErrChanged naming the file.
// On error, w holds an incomplete payload that must be discarded.
func Write(w io.Writer, entries []Entry, opts WriteOptions) (Stats, error) {
	level, err := opts.level()
	if err != nil {
		return Stats{}, err
	}
	sorted, tarSize, err := prepare(entries)
	if err != nil {
		return Stats{}, err
	}
	cw := &countWriter{w: w}
	if _, err := cw.Write(appendHeader(nil, tarSize)); err != nil {
		return Stats{}, fmt.Errorf("writing payload header: %w", err)
	}
	// Three stages run in parallel, as tar | gzip | age would: reading and
	// packing the files here, compressing, and whatever w does.
	out := newStage(cw)
	defer out.Close()
	gz, err := gzip.NewWriterLevel(out, level)
	if err != nil {
		return Stats{}, fmt.Errorf("gzip level %d: %w", level, err)
	}
	gz.Header = gzip.Header{ModTime: time.Unix(0, 0), OS: 255} // MTIME field 0
	in := newStage(gz)
	defer in.Close()
	pw := &packer{sum: sha256.New(), st: Stats{TarSize: tarSize}}
	pw.count = countWriter{w: io.MultiWriter(in, pw.sum)}
	if err := pw.writeTar(sorted); err != nil {
		return Stats{}, err
	}
	err = in.Close()
	if err == nil {
		err = gz.Close()
	}
	if err != nil {
		return Stats{}, fmt.Errorf("compressing payload: %w", err)
	}
	if err := out.Close(); err != nil {
		return Stats{}, fmt.Errorf("writing payload: %w", err)
	}
	pw.st.PayloadSize = cw.n
	return pw.st, nil
}

func (o WriteOptions) level() (int, error) {
	switch {
	case o.Level == 0:
		return DefaultLevel, nil
	case o.Level < 1 || o.Level > 9:
		return 0, fmt.Errorf("gzip level %d out of range 1..9", o.Level)
	}
	return o.Level, nil
}

// packer writes the tar stream and keeps the statistics.
type packer struct {
	count countWriter // uncompressed tar bytes, teed into sum
	sum   hash.Hash
	st    Stats
	buf   []byte
}

func (p *packer) writeTar(entries []Entry) error {
	tw := tar.NewWriter(&p.count)
	p.buf = make([]byte, copyBufferSize)
	for i := range entries {
		if err := p.writeEntry(tw, &entries[i]); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("writing tar: %w", err)
	}
	if p.count.n != p.st.TarSize {
		return fmt.Errorf("internal error: tar stream is %d bytes, computed %d", p.count.n, p.st.TarSize)
	}
	p.sum.Sum(p.st.TarSHA256[:0])
	return nil
}

func (p *packer) writeEntry(tw *tar.Writer, e *Entry) error {
	if err := tw.WriteHeader(e.tarHeader()); err != nil {
		return fmt.Errorf("writing tar header of %q: %w", e.Name, err)
	}
	switch e.Type {
	case TypeDir:
		p.st.Dirs++
	case TypeSymlink:
		p.st.Symlinks++
	case TypeRegular:
		p.st.Files++
		p.st.Bytes += e.Size
		return p.copyFile(tw, e)
	}
	return nil
}

// copyFile copies exactly e.Size bytes of e's contents into tw.
func (p *packer) copyFile(tw *tar.Writer, e *Entry) error {
	rc, err := e.Open()
	if err != nil {
		return fmt.Errorf("opening %q: %w", e.Name, err)
	}
	defer rc.Close()
	n, err := io.CopyBuffer(tw, io.LimitReader(rc, e.Size), p.buf)
	if err != nil {
		return fmt.Errorf("packing %q: %w", e.Name, err)
	}
	if n < e.Size {
		return tagf(ErrChanged, "%q shrank while packing: expected %d bytes, read %d", e.Name, e.Size, n)
	}
	if k, _ := io.ReadFull(rc, p.buf[:1]); k > 0 {
		return tagf(ErrChanged, "%q grew while packing: expected %d bytes, got more", e.Name, e.Size)
	}
	return nil
}

// prepare validates entries and returns them sorted by tar name together
// with the exact length of their tar stream.
func prepare(entries []Entry) ([]Entry, int64, error) {
	sorted := slices.Clone(entries)
	slices.SortFunc(sorted, func(a, b Entry) int { return strings.Compare(a.tarName(), b.tarName()) })
	types := make(map[string]EntryType, len(sorted))
	size := int64(tarTrailerSize)
	for i := range sorted {
		e := &sorted[i]
		if err := checkEntry(e, types); err != nil {
			return nil, 0, err
		}
		n, err := tarEntrySize(e)
		if err != nil {
			return nil, 0, err
		}
		if n > math.MaxInt64-size {
			return nil, 0, fmt.Errorf("entry %q: tar stream would exceed %d bytes", e.Name, int64(math.MaxInt64))
		}
		size += n
	}
	return sorted, size, nil
}

// checkEntry validates e and its relation to the entries seen before it
// (recorded in types): no duplicates, no entry below a non-directory.
func checkEntry(e *Entry, types map[string]EntryType) error {
	if err := e.validate(); err != nil {
		return err
	}
	if _, dup := types[e.Name]; dup {
		return fmt.Errorf("duplicate entry %q", e.Name)
	}
	for _, d := range parentDirs(e.Name) {
		if t, ok := types[d]; ok && t != TypeDir {
			return fmt.Errorf("entry %q is inside %q, which is a %v", e.Name, d, t)
		}
	}
	types[e.Name] = e.Type
	return nil
}

// tarEntrySize returns the number of tar stream bytes e occupies: its
// header blocks (including any PAX extended header), measured by writing
// them alone, plus its contents padded to whole blocks.
func tarEntrySize(e *Entry) (int64, error) {
	var cw countWriter
	if err := tar.NewWriter(&cw).WriteHeader(e.tarHeader()); err != nil {
		return 0, fmt.Errorf("tar header of %q: %w", e.Name, err)
	}
	padded := (e.Size + tarBlockSize - 1) / tarBlockSize * tarBlockSize
	return cw.n + padded, nil
}

// countWriter counts the bytes written through it; a nil w discards them.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.w == nil {
		c.n += int64(len(p))
		return len(p), nil
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
