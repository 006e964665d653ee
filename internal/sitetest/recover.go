package sitetest

import (
	"context"
	"fmt"
	"iter"
	"path/filepath"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/source"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// RecoverDir recovers with o from every HTML file under dir (a mirror, a
// copy of a site) and no other source.
func RecoverDir(dir string, o lzrecover.Options) (*lzrecover.Report, error) {
	o.Sources = []lzrecover.Source{source.DirSource{Dir: dir}}
	return lzrecover.Run(context.Background(), o)
}

// RecoverPages recovers with o from pages (name → bytes), written into a
// temporary directory first, each under its name (or a number when the
// name is not a local file name).
func RecoverPages(tb testing.TB, pages iter.Seq2[string, []byte], o lzrecover.Options) (*lzrecover.Report, error) {
	tb.Helper()
	dir := tb.TempDir()
	n := 0
	for name, page := range pages {
		n++
		if name = filepath.FromSlash(name); !filepath.IsLocal(name) || filepath.Ext(name) == "" {
			name = fmt.Sprintf("page%d.html", n)
		}
		WriteFile(tb, dir, name, page)
	}
	return RecoverDir(dir, o)
}
