package warc

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// SkipFile, returned by a WalkFunc, skips the rest of the current file.
var SkipFile = errors.New("warc: skip file")

// ErrNoFiles means Walk's root is, or holds, no .warc, .warc.gz or .wacz
// file: a mistyped path would otherwise read as an empty archive.
var ErrNoFiles = errors.New("warc: no .warc, .warc.gz or .wacz file")

// WalkFunc is called by Walk for each record. file names the WARC file;
// for a WARC inside a WACZ it is the WACZ path, "#" and the member name.
// Returning SkipFile skips the rest of the file; any other error stops
// the walk and is returned by Walk.
type WalkFunc func(file string, rec *Record) error

// Walk calls fn for every record of every .warc, .warc.gz and .wacz file
// at root: a single file, or a directory walked recursively in lexical
// order. Files that cannot be read, and records after a fatal read error,
// are skipped; Walk continues and returns those errors joined at the end.
// Non-fatal problems inside files are not reported. A root that is, or
// holds, no such file is an error wrapping ErrNoFiles.
func Walk(root string, fn WalkFunc) error {
	var errs []error
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		if d.IsDir() || !isWalkable(p) {
			return nil
		}
		files++
		stop, ferr := walkFile(p, fn)
		if stop {
			return ferr
		}
		if ferr != nil {
			errs = append(errs, ferr)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if files == 0 && len(errs) == 0 {
		return fmt.Errorf("%w at %s", ErrNoFiles, root)
	}
	return errors.Join(errs...)
}

func isWalkable(name string) bool {
	return isWARCName(name) || strings.HasSuffix(strings.ToLower(name), ".wacz")
}

// walkFile reads one file; stop reports that fn asked to end the walk.
func walkFile(name string, fn WalkFunc) (stop bool, err error) {
	if strings.HasSuffix(strings.ToLower(name), ".wacz") {
		return walkWACZ(name, fn)
	}
	f, err := os.Open(name)
	if err != nil {
		return false, fmt.Errorf("warc: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("warc: %w", err)
	}
	if !st.Mode().IsRegular() {
		return walkRecords(name, NewReader(f), fn)
	}
	rd := NewReaderAt(f, st.Size(), 0) // gzip members inflated in parallel
	defer rd.Close()
	return walkRecords(name, rd, fn)
}

func walkWACZ(name string, fn WalkFunc) (bool, error) {
	w, err := OpenWACZ(name)
	if err != nil {
		return false, fmt.Errorf("warc: %s: %w", name, err)
	}
	defer w.Close()
	var errs []error
	for _, member := range w.Files {
		rc, err := w.Open(member)
		if err != nil {
			errs = append(errs, fmt.Errorf("warc: %s: %w", name, err))
			continue
		}
		stop, err := walkRecords(name+"#"+member, NewReader(rc), fn)
		rc.Close()
		if stop {
			return true, err
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return false, errors.Join(errs...)
}

// walkRecords calls fn for each record read from rd.
func walkRecords(file string, rd *Reader, fn WalkFunc) (bool, error) {
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("warc: %s: %w", file, err)
		}
		switch err := fn(file, rec); {
		case err == SkipFile:
			return false, nil
		case err != nil:
			return true, err
		}
	}
}
