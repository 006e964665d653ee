package bundle

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// ExtractOptions tunes Extract.
type ExtractOptions struct {
	// MaxTarSize, if positive, is the largest tar stream accepted, usually
	// the exact size declared by the (signed) manifest; a payload header
	// declaring more fails with ErrTooLarge. Defaults to 0: only the size
	// in the payload header bounds decompression.
	MaxTarSize int64
	// Force allows replacing existing files and symbolic links. Existing
	// directories are always merged into (what is already in them stays
	// unless a payload entry of the same name replaces it under Force);
	// they are never replaced by non-directories, and existing symbolic
	// links are never extracted into. Defaults to false: any existing name
	// other than a directory fails the extraction with ErrExists before
	// anything is moved.
	Force bool
	// KeepSetuid keeps setuid and setgid bits. Defaults to false: they are
	// cleared and each clearing is reported as a Problem.
	KeepSetuid bool
	// Reserved, if not nil, is asked about the top-level name of every
	// entry; an entry whose top-level name it returns true for fails the
	// extraction with ErrUnsafePath before anything is moved (the caller's
	// own files in dir, such as a report, are never replaced by payload
	// entries). Defaults to nil: no name is reserved.
	Reserved func(top string) bool
	// Writers is how many goroutines create and write regular files
	// while the tar stream is read on the calling goroutine; directories
	// and links are created in tar order by the reader. The result
	// (files, report, error) does not depend on it. Defaults to 0: 4.
	// Negative values are refused.
	Writers int
}

// Report describes a completed extraction.
type Report struct {
	Files     int   // regular files
	Dirs      int   // directories listed in the payload
	Symlinks  int   // symbolic links
	HardLinks int   // hard links to earlier files
	Bytes     int64 // content bytes of regular files
	TarSize   int64 // length of the tar stream, as declared and verified
	// Top lists the top-level names extracted, sorted: where the
	// payload's files are in the target directory.
	Top []string
	// Problems lists what was not restored exactly as recorded: skipped
	// device and FIFO entries, cleared setuid bits, metadata that could
	// not be set.
	Problems []Warning
	// Owners counts the entries by the user and group the payload records
	// for them (by name), and says whether they were given them (see
	// Extract); entries without a recorded owner are not counted.
	Owners []Ownership
}

// Extract reads a payload from r and recreates its entries in the existing
// directory dir.
//
// No extracted entry appears in dir until the whole payload has been read
// and verified: entries are first extracted into a fresh staging directory
// inside dir (named ".lazarus-staging-*"), then moved into place; on any
// error the staging directory is removed and dir is left as it was. Hostile input is rejected with the
// package's sentinel errors: unsafe names (ErrUnsafePath), writes below a
// symbolic link (ErrThroughSymlink), excess or missing data (ErrBomb,
// ErrTruncated). Symbolic links are restored verbatim, whatever their
// target, and never followed. Hard links may only point to regular files
// extracted earlier from the same payload. Device and FIFO entries are
// skipped and reported in Report.Problems.
//
// Aligned 64 KiB runs of zero bytes are left as holes, so sparse files stay
// sparse. Owners are restored by name (never by number) where the
// extracting user can set them: as root, the recorded user and group of
// every file, directory and symbolic link where this system has them;
// what was and was not restored is counted in Report.Owners, never an
// error. Symbolic link modification times are not restored.
func Extract(r io.Reader, dir string, opts ExtractOptions) (Report, error) {
	s, err := Stage(r, dir, opts)
	if err != nil {
		return Report{}, err
	}
	return s.Commit()
}

// Staged is a payload extracted into its staging directory inside the
// target directory, nothing of it moved into place yet: the first half
// of Extract, done before it is known whether the payload is wanted.
type Staged struct {
	st   *staging
	x    *extractor
	done bool // committed or removed
}

// Stage reads a payload from r into a fresh staging directory inside
// dir, with every check of Extract, and leaves it there: dir is as it was
// until Commit. On error nothing is left. The result must be committed
// or removed.
func Stage(r io.Reader, dir string, opts ExtractOptions) (*Staged, error) {
	if opts.Writers < 0 {
		return nil, fmt.Errorf("extract: Writers %d is negative", opts.Writers)
	}
	tarSize, err := readTarSize(r, opts.MaxTarSize)
	if err != nil {
		return nil, err
	}
	st, err := newStaging(dir)
	if err != nil {
		return nil, err
	}
	t, err := newTree(st.tree)
	if err != nil {
		st.remove()
		return nil, err
	}
	x := &extractor{tree: t, opts: opts, rep: Report{TarSize: tarSize}, own: newOwners()}
	err = x.run(r, tarSize)
	t.close() // committing needs the names only
	if err != nil {
		st.remove()
		return nil, err
	}
	return &Staged{st: st, x: x}, nil
}

// Commit moves the staged entries into place, as Extract does after
// reading the payload (conflicts checked before anything moves, moves
// undone if one fails), and removes the staging directory.
func (s *Staged) Commit() (Report, error) {
	if s.done {
		return Report{}, errors.New("extract: staged payload already committed or removed")
	}
	defer s.Remove()
	if err := s.st.commit(s.x.tree, s.x.opts.Force); err != nil {
		return Report{}, err
	}
	s.x.rep.Problems = append(s.x.rep.Problems, s.st.finalize(s.x.tree)...)
	s.x.rep.Top = childrenOf(s.x.tree)["."]
	s.x.rep.Owners = s.x.own.report()
	return s.x.rep, nil
}

// Remove deletes the staging directory and what is left in it; after
// Commit, or a second time, it does nothing.
func (s *Staged) Remove() {
	if !s.done {
		s.done = true
		s.st.remove()
	}
}

// readTarSize reads the payload header and checks the declared tar size.
func readTarSize(r io.Reader, limit int64) (int64, error) {
	if limit < 0 {
		return 0, fmt.Errorf("extract: MaxTarSize %d is negative", limit)
	}
	size, err := readHeader(r)
	if err != nil {
		return 0, err
	}
	if limit > 0 && size > limit {
		return 0, tagf(ErrTooLarge, "payload declares a tar stream of %d bytes, more than the allowed %d", size, limit)
	}
	if size < tarTrailerSize || size%tarBlockSize != 0 {
		return 0, tagf(ErrCorrupt, "declared tar size %d is not a valid tar length", size)
	}
	return size, nil
}

// extractor reads the tar stream into the staging tree.
type extractor struct {
	tree     *tree
	opts     ExtractOptions
	rep      Report
	lim      *exactReader
	w        *writers
	own      *owners
	seq      int   // number of the current entry in the tar stream
	declared int64 // sum of regular file sizes so far
}

func (x *extractor) run(r io.Reader, tarSize int64) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return tagf(ErrTruncated, "payload ends before its compressed data")
		}
		return tagCause(ErrCorrupt, err, "decompressing payload")
	}
	defer gz.Close()
	x.lim = newExactReader(gz, tarSize)
	n := x.opts.Writers
	if n == 0 {
		n = defaultWriters
	}
	x.w = newWriters(n)
	err = x.entries(tar.NewReader(x.lim))
	x.w.close()
	// A writer's failure on an earlier entry is what a sequential
	// extraction would have stopped at.
	if seq, werr := x.w.firstErr(); werr != nil && (err == nil || seq < x.seq) {
		return werr
	}
	return err
}

// entries extracts the entries of the tar stream in order, stopping
// early once a writer failed.
func (x *extractor) entries(tr *tar.Reader) error {
	for x.seq = 0; !x.w.failed.Load(); x.seq++ {
		hdr, err := tr.Next()
		if err == io.EOF {
			return x.lim.finish()
		}
		if err != nil {
			return x.cause(tagCause(ErrCorrupt, err, "reading tar"))
		}
		if err := x.entry(hdr, tr); err != nil {
			return x.cause(err)
		}
	}
	return nil
}

// cause prefers the stream error (truncation, bomb…) that made a tar
// operation fail over the error the tar reader derived from it.
func (x *extractor) cause(err error) error {
	if x.lim.err != nil {
		return x.lim.err
	}
	return err
}

// entry extracts one tar entry.
func (x *extractor) entry(hdr *tar.Header, r io.Reader) error {
	if hdr.Typeflag == tar.TypeXGlobalHeader {
		x.problem(hdr.Name, "ignored global PAX header")
		return nil
	}
	name, err := entryName(hdr)
	if err != nil {
		return err
	}
	if top, _, _ := strings.Cut(name, "/"); x.opts.Reserved != nil && x.opts.Reserved(top) {
		return tagf(ErrUnsafePath, "entry %q: %q is reserved in the target directory", name, top)
	}
	if hdr.Typeflag == tar.TypeGNUSparse || hasSparseRecords(hdr) {
		return tagf(ErrCorrupt, "entry %q: sparse tar entries are not supported", name)
	}
	switch hdr.Typeflag {
	case tar.TypeReg:
		return x.file(name, hdr, r)
	case tar.TypeDir:
		return x.dir(name, hdr)
	case tar.TypeSymlink:
		return x.symlink(name, hdr)
	case tar.TypeLink:
		return x.hardlink(name, hdr)
	case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
		x.problem(name, fmt.Sprintf("skipped %s entry", typeName(hdr.Typeflag)))
		return nil
	}
	return tagf(ErrCorrupt, "entry %q: unsupported tar entry type %q", name, hdr.Typeflag)
}

// entryName returns the validated entry name of hdr, without the trailing
// slash of directories.
func entryName(hdr *tar.Header) (string, error) {
	name := hdr.Name
	if hdr.Typeflag == tar.TypeDir {
		name = strings.TrimSuffix(name, "/")
	}
	if err := validateName(name); err != nil {
		return "", err
	}
	return name, nil
}

func hasSparseRecords(hdr *tar.Header) bool {
	for k := range hdr.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return true
		}
	}
	return false
}

func typeName(flag byte) string {
	switch flag {
	case tar.TypeChar:
		return "character device"
	case tar.TypeBlock:
		return "block device"
	}
	return "FIFO"
}

func (x *extractor) problem(name, reason string) {
	x.rep.Problems = append(x.rep.Problems, Warning{Name: name, Reason: reason})
}

// owner returns the owner to give the entry of hdr (see owners). Names
// longer than the format allows are not kept (a pax record may hold a
// MiB): the entry is counted as not given an owner.
func (x *extractor) owner(hdr *tar.Header) owner {
	if len(hdr.Uname) > maxOwnerName || len(hdr.Gname) > maxOwnerName {
		x.own.count(Ownership{Reason: fmt.Sprintf("owner or group name longer than %d bytes", maxOwnerName)})
		return owner{uid: -1, gid: -1}
	}
	o := owner{own: x.own, user: hdr.Uname, group: hdr.Gname}
	o.uid, o.gid = x.own.resolve(o.user, o.group)
	return o
}

// mode returns the mode to restore for hdr, clearing setuid and setgid
// bits unless asked to keep them.
func (x *extractor) mode(name string, hdr *tar.Header) fs.FileMode {
	m := fileMode(hdr.Mode)
	if !x.opts.KeepSetuid && m&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
		m &^= fs.ModeSetuid | fs.ModeSetgid
		x.problem(name, "cleared setuid/setgid bits")
	}
	return m
}

func (x *extractor) file(name string, hdr *tar.Header, r io.Reader) error {
	x.declared += hdr.Size
	if x.declared > x.rep.TarSize {
		return tagf(ErrCorrupt, "entry %q: file sizes add up to more than the tar stream", name)
	}
	if err := x.tree.claim(name, kindFile); err != nil {
		return err
	}
	dir, base, err := x.tree.dirs.hold(name)
	if err != nil {
		return err
	}
	j := &fileJob{seq: x.seq, name: name, dir: dir, base: base, mode: x.mode(name, hdr), mtime: hdr.ModTime, owner: x.owner(hdr)}
	if err := x.w.send(j, r, hdr.Size); err != nil {
		return fmt.Errorf("writing %q: %w", name, err)
	}
	x.rep.Files++
	x.rep.Bytes += hdr.Size
	return nil
}

func (x *extractor) dir(name string, hdr *tar.Header) error {
	if err := x.tree.claim(name, kindDir); err != nil {
		return err
	}
	x.rep.Dirs++
	x.tree.nodes[name].mode = x.mode(name, hdr)
	x.tree.nodes[name].mtime = hdr.ModTime
	x.tree.nodes[name].owner = x.owner(hdr)
	return nil
}

func (x *extractor) symlink(name string, hdr *tar.Header) error {
	if hdr.Linkname == "" {
		return tagf(ErrCorrupt, "symbolic link %q has an empty target", name)
	}
	if err := x.tree.claim(name, kindSymlink); err != nil {
		return err
	}
	if err := x.tree.symlink(hdr.Linkname, name, x.owner(hdr)); err != nil {
		return fmt.Errorf("creating symbolic link %q: %w", name, err)
	}
	x.rep.Symlinks++
	return nil
}

func (x *extractor) hardlink(name string, hdr *tar.Header) error {
	target := hdr.Linkname
	if err := validateName(target); err != nil {
		return tagCause(ErrUnsafePath, err, "hard link %q", name)
	}
	if n := x.tree.nodes[target]; n == nil || n.kind != kindFile {
		return tagf(ErrUnsafePath, "hard link %q: target %q is not a regular file extracted earlier", name, target)
	}
	if err := x.tree.claim(name, kindFile); err != nil {
		return err
	}
	x.w.wait() // the target may still be being written
	if x.w.failed.Load() {
		return nil // the writer's error is the one returned
	}
	if err := x.tree.link(target, name); err != nil {
		return fmt.Errorf("creating hard link %q: %w", name, err)
	}
	x.rep.HardLinks++
	return nil
}
