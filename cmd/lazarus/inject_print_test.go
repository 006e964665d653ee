package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/injector"
)

// TestPrintInjectOneComparisonSign: probabilities near 0 and 1 are
// printed with one comparison sign ("> 99%", "> 99.999%"), never two
// ("≥ > 99.999%").
func TestPrintInjectOneComparisonSign(t *testing.T) {
	var b bytes.Buffer
	printInject(&b, &injector.Report{
		Generation: "g", New: true, Carriers: 3, Recoverability: 0.9999, Target: 0.999995,
		Outlook: &injector.Outlook{Carriers: 3, Survives: 1, ManifestPages: 1, Archives: []string{"wayback"},
			Within: []injector.Chance{{Days: 1, Probability: 0.001}, {Days: 7, Probability: 0.5}, {Days: 30, Probability: 0.999995}}},
	}, "state")
	out := b.String()
	for _, want := range []string{"SHORT of the planner's > 99.999% target", "within 1 day < 1%", "within 7 days ≥ 50%", "within 30 days > 99%"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	for _, twice := range []string{"≥ >", "≥ <", "> >", "≥ ≥"} {
		if strings.Contains(out, twice) {
			t.Errorf("%q in\n%s", twice, out)
		}
	}
}

// TestPrintInjectCountsInEnglish: one stripe, one file, one page are
// singular; the count of stripes is never "stripe(s)".
func TestPrintInjectCountsInEnglish(t *testing.T) {
	var b bytes.Buffer
	printInject(&b, &injector.Report{
		Generation: "g", New: true, Carriers: 1, Written: 1,
		Segments: []injector.SegmentReport{{Name: "app", Changed: true, Files: 1, Stripes: 1, K: 1, M: 8}, {Name: "db", Changed: true, Files: 2, Stripes: 2, K: 1, M: 8}},
		Pages:    []injector.PageReport{{URL: "/", Blocks: 1, Manifest: true}},
	}, "state")
	out := b.String()
	for _, want := range []string{" 1 stripe of k=1+m=8", " 2 stripes of k=1+m=8", "1 carrier page,", "1 block placed", "manifest on 1 page,", "1 file written"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "(s)") {
		t.Errorf("a count in the form (s):\n%s", out)
	}
}

// TestPrintInjectFullWidth: a max plan that spans every page says that
// a larger page budget adds nothing, and what would.
func TestPrintInjectFullWidth(t *testing.T) {
	var b bytes.Buffer
	printInject(&b, &injector.Report{Generation: "g", New: true, Carriers: 21, FullWidth: true}, "state")
	if want := "  redundancy max: every stripe spans all 21 carrier pages, the most they hold (a page never carries two blocks of one stripe); a larger --page-budget adds nothing, more linked pages would\n"; !strings.Contains(b.String(), want) {
		t.Errorf("missing %q in\n%s", want, b.String())
	}
}

// TestPrintInjectSitemap: the sitemap of a site at its host's root is
// said to be named in robots.txt (inject adds the line); that of a site
// under a path is not (the host's robots.txt is not the site's, inject
// leaves it alone), and the line says what to add there.
func TestPrintInjectSitemap(t *testing.T) {
	for sitemap, want := range map[string]string{
		"https://example.org/sitemap.xml":      "  sitemap: https://example.org/sitemap.xml, named in robots.txt",
		"https://example.org/blog/sitemap.xml": `  sitemap: https://example.org/blog/sitemap.xml; the site is not at its host's root, whose robots.txt is not the site's: add "Sitemap: https://example.org/blog/sitemap.xml" to it`,
	} {
		var b bytes.Buffer
		printInject(&b, &injector.Report{Generation: "g", New: true, Sitemap: sitemap}, "state")
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
		if strings.Contains(sitemap, "/blog/") && strings.Contains(b.String(), "named in robots.txt") {
			t.Errorf("a sitemap under a path said to be named in robots.txt:\n%s", b.String())
		}
	}
}
