package htmlblock

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestStripFastAgrees: the fast path gives exactly the tokenizer's result
// (page and insertion layout) on every golden page carrying large comments,
// also when comments sit where they are not comment tokens (inside a
// script, inside another comment), where the fast path must step aside.
func TestStripFastAgrees(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.html")
	big := mustArmor(t, KindBlock, testPayload(1, 20000))
	for _, f := range files {
		page, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		injected, err := Insert(page, big, big)
		if err != nil {
			t.Fatal(err)
		}
		variants := map[string][]byte{
			"injected":       injected,
			"in script":      append(append([]byte("<script>"), big...), append([]byte("</script>"), injected...)...),
			"in comment":     append(append([]byte("<!-- x "), big...), append([]byte(" -->"), injected...)...),
			"joined":         append(append([]byte("<!-"), big...), []byte("- lazarus block 1 AAAA -->")...),
			"damaged second": append(append([]byte{}, injected...), big[:len(big)/2]...),
		}
		for name, v := range variants {
			want, wl, _ := stripSlow(v)
			got, gl := strip(v)
			if !bytes.Equal(got, want) || gl != wl {
				t.Errorf("%s/%s: fast strip differs from the tokenizer's", filepath.Base(f), name)
			}
		}
	}
}

// FuzzStripFast: on any input the fast path agrees with the tokenizer.
func FuzzStripFast(f *testing.F) {
	big := mustArmor(f, KindBlock, testPayload(2, 4000))
	f.Add([]byte("<html><body><p>x</p></body></html>"), 0)
	f.Add([]byte("<script>x</script><body></body>"), 9)
	f.Fuzz(func(t *testing.T, page []byte, at int) {
		if len(page) > 1<<16 {
			return
		}
		at = min(max(at, 0), len(page))
		in := append(append(append([]byte{}, page[:at]...), big...), page[at:]...)
		want, wl, _ := stripSlow(in)
		got, gl := strip(in)
		if !bytes.Equal(got, want) || gl != wl {
			t.Fatal("fast strip differs from the tokenizer's")
		}
	})
}

// carrierPage is a small page carrying five 48 KiB blocks.
func carrierPage(b *testing.B) []byte {
	var cs [][]byte
	for i := 0; i < 5; i++ {
		cs = append(cs, mustArmor(b, KindBlock, testPayload(uint64(i), 48<<10)))
	}
	page, _ := Insert([]byte("<html><body><p>text</p></body></html>"), cs...)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	return page
}

func BenchmarkStrip_Carrier(b *testing.B) {
	page := carrierPage(b)
	for b.Loop() {
		Strip(page)
	}
}

func BenchmarkStripSlow_Carrier(b *testing.B) {
	page := carrierPage(b)
	for b.Loop() {
		stripSlow(page)
	}
}
