package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/verify"

	"github.com/lazarus-preserve/lazarus/internal/contentcoding/codingtest"
)

// TestVerifyCodingsThroughCaddy: a static site injected in place and
// served by Caddy as a webmaster would (encode zstd gzip, file_server
// with the precompressed .br files the site's build made). The root
// page's .br was made before inject. Expected: verify says the Internet
// Archive's crawler ("gzip, deflate, zstd") gets zstd with the same
// blocks, and that browsers' captures (br) of the root page carry other
// blocks: a warning and a short verdict; once the stale .br is gone, none.
func TestVerifyCodingsThroughCaddy(t *testing.T) {
	s := sitetest.NewSite(t)
	dir, site := s.Dir, s.Pages()
	links := ""
	for i := range 6 {
		links += fmt.Sprintf("<a href=\"p%d.html\">page %d</a>\n", i, i)
		writePage(t, site, fmt.Sprintf("p%d.html", i), fmt.Sprintf("<html><body><p>page %d</p></body></html>", i))
	}
	writePage(t, site, "index.html", "<html><body>"+links+"</body></html>")
	writePage(t, dir, "src/app/index.php", strings.Repeat("<?php echo 'hello'; ?>\n", 500))
	root, _ := os.ReadFile(filepath.Join(site, "index.html"))
	stale := filepath.Join(site, "index.html.br")
	br, err := codingtest.Encode(root, "br")
	if err != nil {
		t.Fatal(err)
	}
	writePage(t, site, "index.html.br", string(br)) // the build's, before inject

	base := runCaddy(t, func(base string) []any {
		o := s.DefaultOptions(base) // inject's own plan, as a webmaster runs it
		o.Includes = s.Include("app")
		sitetest.Inject(t, o)
		return []any{
			map[string]any{"handler": "encode", "encodings": map[string]any{"zstd": map[string]any{}, "gzip": map[string]any{}}, "prefer": []string{"zstd", "gzip"}},
			map[string]any{"handler": "file_server", "root": site, "precompressed": map[string]any{"br": map[string]any{}}, "precompressed_order": []string{"br"}},
		}
	})
	verifyOnce := func() (*verify.Report, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		rep, err := verify.Run(ctx, verify.Options{SiteURL: base, ServerKey: s.Server.Marshal(), Rate: 600000})
		if rep == nil {
			t.Fatalf("verify: %v", err)
		}
		return rep, err
	}
	rep, err := verifyOnce()
	if !errors.Is(err, verify.ErrShort) {
		t.Fatalf("verify with a stale .br: %v, want ErrShort", err)
	}
	for _, e := range rep.Encodings {
		t.Logf("asking for %q: %v, the same blocks on %d of %d pages; %q", e.AcceptEncoding, e.Codings, e.SameBlocks, e.Checked, e.Problems)
		if e.AcceptEncoding == "gzip, deflate, zstd" && (e.Codings["zstd"] != e.Checked || e.SameBlocks != e.Checked) {
			t.Errorf("the Internet Archive's crawler: %+v", e)
		}
	}
	warnings := strings.Join(rep.Warnings, "\n")
	if !strings.Contains(warnings, `asking for "gzip, deflate, br, zstd"`) || !strings.Contains(warnings, base+": answered in br with other Lazarus blocks") {
		t.Fatalf("no warning about the stale .br of the root page:\n%s", warnings)
	}

	if err := os.Remove(stale); err != nil {
		t.Fatal(err)
	}
	if rep, err := verifyOnce(); err != nil || len(rep.Warnings) > 0 {
		t.Fatalf("without the stale .br: %v, warnings %q", err, rep.Warnings)
	}
}

// writePage writes dir/name, creating its directories.
func writePage(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
