package warc

import (
	"archive/zip"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
)

// WACZ is an open WACZ file: a zip archive whose archive/ directory holds
// WARC files.
type WACZ struct {
	zr    *zip.ReadCloser
	files map[string]*zip.File
	// Files lists the WARC files in the archive, sorted by name.
	Files []string
}

// OpenWACZ opens the WACZ file at name and lists the WARC files
// (archive/*.warc, archive/*.warc.gz) it holds.
func OpenWACZ(name string) (*WACZ, error) {
	zr, err := zip.OpenReader(name)
	if err != nil {
		return nil, fmt.Errorf("warc: opening WACZ: %w", err)
	}
	w := &WACZ{zr: zr, files: map[string]*zip.File{}}
	for _, f := range zr.File {
		if path.Dir(f.Name) == "archive" && isWARCName(f.Name) && !f.FileInfo().IsDir() {
			w.files[f.Name] = f
			w.Files = append(w.Files, f.Name)
		}
	}
	sort.Strings(w.Files)
	return w, nil
}

// Open opens one of the WARC files listed in Files.
func (w *WACZ) Open(name string) (io.ReadCloser, error) {
	f, ok := w.files[name]
	if !ok {
		return nil, fmt.Errorf("warc: %q is not a WARC file of the WACZ", name)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("warc: opening %s in WACZ: %w", name, err)
	}
	return rc, nil
}

// Close closes the WACZ file.
func (w *WACZ) Close() error { return w.zr.Close() }

// isWARCName reports whether name ends in .warc or .warc.gz.
func isWARCName(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".warc") || strings.HasSuffix(n, ".warc.gz")
}
