package recover_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
)

// writeFile writes dir/name, creating its directories.
func writeFile(tb testing.TB, dir, name string, content []byte) {
	tb.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, content, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// linkedSite writes dir/site: an index page linking n small pages.
func linkedSite(tb testing.TB, dir string, n int) {
	tb.Helper()
	links := ""
	for i := 0; i < n; i++ {
		links += fmt.Sprintf("<a href=\"p%d.html\">%d</a>\n", i, i)
		writeFile(tb, dir, fmt.Sprintf("site/p%d.html", i), []byte("<html><body><p>page</p></body></html>"))
	}
	writeFile(tb, dir, "site/index.html", []byte("<html><body>"+links+"</body></html>"))
}

// capturesOf captures every page of a site directory at one time, as an
// archive would have them: https://example.org/ plus the file name.
func capturesOf(tb testing.TB, site string, at time.Time) []archivetest.Capture {
	tb.Helper()
	var caps []archivetest.Capture
	files, _ := filepath.Glob(filepath.Join(site, "*.html"))
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), "index.html")
		caps = append(caps, archivetest.Capture{URL: "https://example.org/" + name, Time: at, Body: body})
	}
	return caps
}
