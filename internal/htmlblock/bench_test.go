package htmlblock

import (
	"bytes"
	"testing"
)

// benchPage returns about size bytes of ordinary HTML, ending in
// "</body></html>".
func benchPage(size int) []byte {
	unit := []byte(`<div class="post"><h2><a href="/p/1">A title</a></h2>
<p>Lorem ipsum <em>dolor</em> sit amet, consectetur adipiscing elit &amp; more.</p>
<svg viewBox="0 0 10 10"><path d="M0 0L10 10"/></svg><!-- note -->
<script>var x = "<b>" + 1;</script>
</div>
`)
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html><head><title>bench</title></head><body>\n")
	for b.Len() < size-len("</body></html>\n") {
		b.Write(unit)
	}
	b.WriteString("</body></html>\n")
	return b.Bytes()
}

func BenchmarkScan_1MiB(b *testing.B) {
	const blocks, payload = 20, 48 << 10 / 4 * 3 // 48 KiB of base64 each
	filler := benchPage(2 << 10)
	var page []byte
	for i := range blocks {
		page = append(page, filler...)
		page = append(page, mustArmor(b, KindBlock, testPayload(uint64(i), payload))...)
	}
	page = append(page, filler...)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if n := len(Scan(page)); n != blocks {
			b.Fatalf("found %d blocks", n)
		}
	}
}

func benchComments(b *testing.B) [][]byte {
	return [][]byte{
		mustArmor(b, KindManifest, testPayload(1, 512)),
		mustArmor(b, KindBlock, testPayload(2, 4096)),
		mustArmor(b, KindBlock, testPayload(3, 4096)),
	}
}

func BenchmarkInsert_40KiB(b *testing.B) {
	page := benchPage(40 << 10)
	comments := benchComments(b)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Insert(page, comments...); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInsert_40KiB_Reinject inserts into a page that already holds the
// comments, which takes a second tokenizing pass.
func BenchmarkInsert_40KiB_Reinject(b *testing.B) {
	comments := benchComments(b)
	page, err := Insert(benchPage(40<<10), comments...)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Insert(page, comments...); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkArmor_36KiB(b *testing.B) {
	payload := testPayload(1, 36<<10)
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Armor(KindBlock, payload); err != nil {
			b.Fatal(err)
		}
	}
}
