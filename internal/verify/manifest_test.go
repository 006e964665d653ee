package verify_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/verify"
)

// TestVerifyShortWithoutKeptManifest: with no manifest on any page, a
// data segment whose blocks are all gone must not go unnoticed: Verify
// is short, and says no manifest was found on a page archives would
// keep. Every block present but no manifest is short too (recover needs
// the manifest to know the generation's segments), and so is a manifest
// found only on a page archives would not keep.
func TestVerifyShortWithoutKeptManifest(t *testing.T) {
	const want = "no manifest on any page archives would keep"
	t.Run("segment etc gone", func(t *testing.T) {
		s := sitetest.ServedInjected(t, nil)
		if n := removeComments(t, s.Site, nil, func(k htmlblock.Kind, seg string) bool {
			return k == htmlblock.KindManifest || strings.Contains(seg, "etc")
		}); n == 0 {
			t.Fatal("nothing removed")
		}
		rep, err := runVerify(t, s.VerifyOptions(s.Server, false))
		if !errors.Is(err, verify.ErrShort) || rep.Rebuildable || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v, rebuildable %v; want ErrShort saying %q", err, rep != nil && rep.Rebuildable, want)
		}
		if !strings.Contains(err.Error(), "of segments app, but no manifest") {
			t.Errorf("error %q does not say what was seen (segment app)", err)
		}
		t.Log(err)
	})
	t.Run("every block, no manifest", func(t *testing.T) {
		s := sitetest.ServedInjected(t, nil)
		removeComments(t, s.Site, nil, func(k htmlblock.Kind, _ string) bool { return k == htmlblock.KindManifest })
		rep, err := runVerify(t, s.VerifyOptions(s.Server, false))
		if !errors.Is(err, verify.ErrShort) || rep.Rebuildable || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v; want ErrShort saying %q", err, want)
		}
	})
	t.Run("manifest only where archives would not keep it", func(t *testing.T) {
		s := sitetest.ServedInjected(t, nil)
		// Keep the manifest on p1 only, and disallow p1 for every archive
		// crawler (one archive allowed would keep it: see
		// TestVerifyRobotsPerArchive).
		removeComments(t, s.Site, map[string]bool{"p1.html": true}, func(k htmlblock.Kind, _ string) bool { return k == htmlblock.KindManifest })
		sitetest.WriteFile(t, s.Site, "robots.txt", []byte("User-agent: *\nDisallow: /p1.html\n"))
		rep, err := runVerify(t, s.VerifyOptions(s.Server, false))
		if !errors.Is(err, verify.ErrShort) || rep.Rebuildable || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v; want ErrShort saying %q", err, want)
		}
		if !rep.FromManifest || rep.Manifest.Root || rep.Manifest.OneHop != 0 || rep.Manifest.Kept != 0 {
			t.Fatalf("the manifest was found (on an excluded page only) but the report says %+v, from manifest %v", rep.Manifest, rep.FromManifest)
		}
		if !strings.Contains(err.Error(), "p1.html (robots.txt disallows it for ia_archiver, archive.org_bot, CCBot)") {
			t.Errorf("error %q does not name the page the manifest is on", err)
		}
		t.Log(err)
	})
}
