package injector

import (
	"context"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	archives "github.com/lazarus-preserve/lazarus/internal/source"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// recoverDir recovers with o from every HTML file under dir. (The shared
// fixtures of package sitetest build sites with this package, so its
// tests cannot use them.)
func recoverDir(dir string, o lzrecover.Options) (*lzrecover.Report, error) {
	o.Sources = []lzrecover.Source{archives.DirSource{Dir: dir}}
	return lzrecover.Run(context.Background(), o)
}

// recoverPages recovers with o from pages written into a temporary
// directory.
func recoverPages(tb testing.TB, pages iter.Seq2[string, []byte], o lzrecover.Options) (*lzrecover.Report, error) {
	tb.Helper()
	dir := tb.TempDir()
	n := 0
	for _, page := range pages {
		n++
		if err := os.WriteFile(filepath.Join(dir, "page"+strconv.Itoa(n)+".html"), page, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return recoverDir(dir, o)
}
