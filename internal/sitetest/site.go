// Package sitetest builds the fixtures tests across the module share: a
// small linked site on disk, captures of it as an archive holds them,
// and a site with keys and generations: Site, which tests inject into
// with the options they need, and Injected, the common one ready made.
// It is for tests only; its keys are made fresh for each test and
// protect nothing.
package sitetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
)

// WriteFile writes dir/name, creating its directories.
func WriteFile(tb testing.TB, dir, name string, content []byte) {
	tb.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, content, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// Linked writes dir/site: an index page linking n small pages, p0.html
// to p(n-1).html.
func Linked(tb testing.TB, dir string, n int) {
	tb.Helper()
	links := ""
	for i := 0; i < n; i++ {
		links += fmt.Sprintf("<a href=\"p%d.html\">%d</a>\n", i, i)
		WriteFile(tb, dir, fmt.Sprintf("site/p%d.html", i), []byte("<html><body><p>page</p></body></html>"))
	}
	WriteFile(tb, dir, "site/index.html", []byte("<html><body>"+links+"</body></html>"))
}

// CapturesOf captures every page of a site directory at one time, as an
// archive would have them: https://example.org/ plus the file name.
func CapturesOf(tb testing.TB, site string, at time.Time) []archivetest.Capture {
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

// HasLine reports whether some line of lines contains s: a report's
// problem, warning or note.
func HasLine(lines []string, s string) bool {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}
