package verify

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/humane"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/problems"
)

// trialRestore restores every rebuildable data segment of the generation
// into a fresh temporary directory, compares each entry with the listing
// (type, size, permission bits, SHA-256, link target) and looks for
// entries the listing does not name, like restic's check --read-data. It
// removes the directory before returning. Mismatches fail it with
// ErrRestoreMismatch; segments that cannot be restored from the live
// pages, or a missing listing, are Skipped (the short segments are
// Verify's ErrShort). A cancelled ctx stops it between two reads of a
// segment and between two entries compared; the directory is removed
// all the same, and ctx's error returned.
func (v *verification) trialRestore(ctx context.Context) error {
	g, tr := v.target, &TrialRestore{}
	v.rep.Restore = tr
	if g.m == nil {
		tr.Skipped = append(tr.Skipped, "no verified manifest of the generation: no listing to compare with")
		return nil
	}
	list, err := v.a.Listing(g.m)
	if err != nil {
		tr.Skipped = append(tr.Skipped, fmt.Sprintf("the listing cannot be read from the live pages: %v", err))
		return nil
	}
	dir, err := os.MkdirTemp(v.o.TempDir, "lazarus-verify-")
	if err != nil {
		return fmt.Errorf("trial restore: %w", err)
	}
	defer os.RemoveAll(dir)
	bySegment := map[string][]manifest.File{}
	for _, f := range list.Files {
		bySegment[f.Segment] = append(bySegment[f.Segment], f)
	}
	for i, ts := range g.segs {
		if ts.layout.Kind != block.KindData {
			continue
		}
		if !v.rep.Segments[i].Rebuildable {
			tr.Skipped = append(tr.Skipped, fmt.Sprintf("segment %s: not rebuildable from the live pages", ts.layout.Name))
			continue
		}
		if err := v.restoreSegment(ctx, filepath.Join(dir, strconv.Itoa(i)), ts, bySegment[ts.layout.Name], tr); err != nil {
			return err
		}
	}
	if len(tr.Mismatches) > 0 {
		return fmt.Errorf("%w: %s (%s)", ErrRestoreMismatch, tr.Mismatches[0], humane.Count(len(tr.Mismatches), "difference"))
	}
	return nil
}

// restoreSegment extracts one segment into dir (created) and compares it
// with its listed files. Only a failure to use the temporary directory is
// an error; what differs is a mismatch.
func (v *verification) restoreSegment(ctx context.Context, dir string, ts targetSegment, files []manifest.File, tr *TrialRestore) error {
	if err := os.Mkdir(dir, 0o700); err != nil {
		return fmt.Errorf("trial restore: %w", err)
	}
	name := ts.layout.Name
	if err := v.extract(ctx, ts, dir); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		tr.mismatch("segment %s does not restore: %v", name, err)
		return nil
	}
	tr.Segments++
	listed := map[string]bool{} // listed entries and their parents (payloads need not list every parent)
	for _, f := range files {
		for p := filepath.FromSlash(f.Path); p != "." && p != string(filepath.Separator) && !listed[p]; p = filepath.Dir(p) {
			listed[p] = true
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		tr.Files++
		if why := compareEntry(dir, f, tr); why != "" {
			tr.mismatch("segment %s: %s: %s", name, f.Path, why)
		}
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("trial restore: %w", err)
		}
		rel, _ := filepath.Rel(dir, p)
		if rel != "." && !listed[rel] {
			tr.mismatch("segment %s: %s restored but not in the listing", name, filepath.ToSlash(rel))
		}
		return nil
	})
}

// extract decrypts a data segment and extracts it into dir, reading it
// through ctx so that a cancellation stops the extraction at its next
// read.
func (v *verification) extract(ctx context.Context, ts targetSegment, dir string) error {
	r, err := v.a.Open(ts.layout)
	if err != nil {
		return err
	}
	_, err = bundle.Extract(ctxReader{ctx, r}, dir, bundle.ExtractOptions{MaxTarSize: ts.tarSize})
	return err
}

// ctxReader fails its reads once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// compareEntry says how the restored entry differs from the listed file
// f, or "" if it matches. Regular files' bytes are added to tr.Bytes.
func compareEntry(dir string, f manifest.File, tr *TrialRestore) string {
	if !filepath.IsLocal(filepath.FromSlash(f.Path)) {
		return "the listing names a path outside the segment"
	}
	p := filepath.Join(dir, filepath.FromSlash(f.Path))
	info, err := os.Lstat(p)
	if err != nil {
		return "missing after the restore"
	}
	switch f.Type {
	case "regular":
		if !info.Mode().IsRegular() {
			return "listed as a regular file, restored as " + info.Mode().Type().String()
		}
		if info.Size() != f.Size {
			return fmt.Sprintf("%d bytes, the listing says %d", info.Size(), f.Size)
		}
		tr.Bytes += info.Size()
		if why := compareHash(p, f.SHA256); why != "" {
			return why
		}
	case "dir":
		if !info.IsDir() {
			return "listed as a directory, restored as " + info.Mode().Type().String()
		}
	case "symlink":
		target, err := os.Readlink(p)
		switch {
		case err != nil:
			return "listed as a symbolic link, restored as " + info.Mode().Type().String()
		case target != f.Link:
			return fmt.Sprintf("links to %q, the listing says %q", target, f.Link)
		}
		return ""
	default:
		return fmt.Sprintf("unknown entry type %q in the listing", f.Type)
	}
	return comparePerm(info.Mode(), f.Mode)
}

// compareHash checks a restored file's SHA-256 against the listing's.
func compareHash(p string, want *manifest.Digest) string {
	if want == nil {
		return "the listing has no SHA-256 for it"
	}
	fh, err := os.Open(p)
	if err != nil {
		return err.Error()
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return err.Error()
	}
	if got := manifest.Digest(h.Sum(nil)); got != *want {
		return fmt.Sprintf("SHA-256 %x, the listing says %x", got[:], want[:])
	}
	return ""
}

// comparePerm compares permission bits with the listing's octal mode
// (setuid and setgid are cleared on restore, so only the low nine bits
// count).
func comparePerm(m fs.FileMode, listed string) string {
	want, err := strconv.ParseUint(listed, 8, 32)
	if err != nil {
		return fmt.Sprintf("the listing's mode %q is not octal", listed)
	}
	if got := uint64(m.Perm()); got != want&0o777 {
		return fmt.Sprintf("mode %04o, the listing says %s", got, listed)
	}
	return ""
}

// mismatch adds a difference, the first problems.MaxLines of them.
func (tr *TrialRestore) mismatch(format string, args ...any) {
	if len(tr.Mismatches) < problems.MaxLines {
		tr.Mismatches = append(tr.Mismatches, fmt.Sprintf(format, args...))
	}
}
