package e2e

import (
	"context"
	"image"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/e2e/internal/e2etest"
	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/chromiumtest"
)

// screenshot renders url with headless Chromium in a 1280 × 2000 window.
func screenshot(t *testing.T, chromium, url string) image.Image {
	t.Helper()
	img, _ := chromiumtest.Screenshot(t, chromium, url, 1280, 2000)
	return img
}

// pixelDiff counts the pixels that differ between two images of the same
// size; it fails the test if the sizes differ.
func pixelDiff(t *testing.T, a, b image.Image) int {
	t.Helper()
	if a.Bounds() != b.Bounds() {
		t.Fatalf("screenshot sizes differ: %v and %v", a.Bounds(), b.Bounds())
	}
	diff := 0
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, a1 := a.At(x, y).RGBA()
			r2, g2, b2, a2 := b.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				diff++
			}
		}
	}
	return diff
}

// uniform reports whether every pixel of img has one colour: a blank page.
func uniform(img image.Image) bool {
	r := img.Bounds()
	first := img.At(r.Min.X, r.Min.Y)
	for y := r.Min.Y; y < r.Max.Y; y += 4 {
		for x := r.Min.X; x < r.Max.X; x += 4 {
			if img.At(x, y) != first {
				return false
			}
		}
	}
	return true
}

// TestInvisibleInChromium: pages of the manual that carry blocks render
// pixel for pixel like the originals in a real browser.
func TestInvisibleInChromium(t *testing.T) {
	needMaterial(t)
	chromium := needTool(t, "chromium")
	if e2etest.RaceEnabled {
		t.Skip("rendering with Chromium is too slow under the race detector")
	}
	before, _ := copyManual(t)
	after, _ := copyManual(t)
	srv := newServerSide(t, wordpressAssets)
	o, _ := srv.injectOptions(t)
	o.SiteDir = after
	o.MaxBlockBytes, o.PageBudget = 32<<10, 600<<10
	res, err := injector.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	logResult(t, res)
	beforeURL, afterURL := serveDir(t, before), serveDir(t, after)
	for _, page := range []string{"index.en.html", "ch03.en.html", "apa.en.html"} {
		t.Run(page, func(t *testing.T) {
			a, _ := os.ReadFile(filepath.Join(before, page))
			b, _ := os.ReadFile(filepath.Join(after, page))
			if len(b) <= len(a) {
				t.Fatalf("%s carries nothing (%d bytes before, %d after); the test would prove nothing", page, len(a), len(b))
			}
			start := time.Now()
			want := screenshot(t, chromium, beforeURL+page)
			got := screenshot(t, chromium, afterURL+page)
			if uniform(want) {
				t.Fatalf("the screenshot of %s is blank; the test would prove nothing", page)
			}
			if n := pixelDiff(t, want, got); n != 0 {
				t.Fatalf("%s: %d pixels differ after injection", page, n)
			}
			t.Logf("%s: %d → %d bytes, %v pixels identical (%v)", page, len(a), len(b), want.Bounds().Size(), time.Since(start).Round(time.Millisecond))
		})
	}
}
