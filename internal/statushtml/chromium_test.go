package statushtml

import (
	"errors"
	"image"
	"os"
	"path/filepath"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/chromiumtest"
)

// keepEnv names a directory to keep the sample page (sample-status.html)
// and its screenshot (sample-status.png) in, for the project's records;
// unset, they go with the test's temporary files.
const keepEnv = "LAZARUS_STATUS_KEEP"

// TestRendersInChromium renders the sample page in headless Chromium, with
// every host name unresolvable, and checks the screenshot is a drawn
// page: many non-white pixels, many colours, and the charts' own colours.
func TestRendersInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("rendering with Chromium is slow")
	}
	chromium := chromiumtest.Find(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "status.html")
	raw, _ := render(t, sampleReport())
	if err := os.WriteFile(page, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	img, png := chromiumtest.Screenshot(t, chromium, "file://"+page, 1280, 4400)
	if keep := os.Getenv(keepEnv); keep != "" {
		if err := errors.Join(os.WriteFile(filepath.Join(keep, "sample-status.png"), png, 0o644),
			os.WriteFile(filepath.Join(keep, "sample-status.html"), []byte(raw), 0o644)); err != nil {
			t.Fatal(err)
		}
	}
	inked, colours := inkAndColours(img)
	total := img.Bounds().Dx() * img.Bounds().Dy()
	t.Logf("%v: %.1f %% non-white pixels, %d colours", img.Bounds().Size(), 100*float64(inked)/float64(total), len(colours))
	if inked*100 < total*3 || len(colours) < 20 {
		t.Errorf("the screenshot looks blank: %d of %d pixels non-white, %d colours", inked, total, len(colours))
	}
	for name, c := range map[string][3]uint8{"wayback (blue)": {0x00, 0x72, 0xB2}, "commoncrawl (orange)": {0xE6, 0x9F, 0x00},
		"the k line (vermilion)": {0xD5, 0x5E, 0x00}, "the verdict's border (orange)": {0xE6, 0x9F, 0x00}} {
		if !hasColour(colours, c) {
			t.Errorf("no pixel of %s %x: the page was not drawn in its colours", name, c)
		}
	}
}

// inkAndColours counts the pixels that are not white and collects the
// colours used, quantized to 5 bits a channel.
func inkAndColours(img image.Image) (int, map[[3]uint8]int) {
	colours := map[[3]uint8]int{}
	inked := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			c := [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8)}
			if c != [3]uint8{255, 255, 255} {
				inked++
			}
			colours[[3]uint8{c[0] &^ 7, c[1] &^ 7, c[2] &^ 7}]++
		}
	}
	return inked, colours
}

// hasColour reports whether some quantized colour is within 16 of c in
// every channel.
func hasColour(colours map[[3]uint8]int, c [3]uint8) bool {
	for k := range colours {
		if near(k[0], c[0]) && near(k[1], c[1]) && near(k[2], c[2]) {
			return true
		}
	}
	return false
}

// near reports whether two channel values differ by at most 16.
func near(a, b uint8) bool {
	return int(a)-int(b) <= 16 && int(b)-int(a) <= 16
}
