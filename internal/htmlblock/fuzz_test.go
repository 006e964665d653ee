package htmlblock

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// fuzzSeeds returns the golden input pages and some tricky fragments.
func fuzzSeeds(f *testing.F) [][]byte {
	seeds := [][]byte{
		[]byte("<<!-- lazarus block 1 QUJD -->!-- lazarus block 1 QUJD -->"),
		[]byte("<svg><![CDATA[<!-- lazarus block 1 QUJD -->]]></svg></body>"),
		[]byte("<p>x</p><script></script"),
		[]byte("<template><svg></template></body><!-- lazarus block 1QUJD-->"),
		[]byte("<!-- lazarus block 2 QUJD --><!-- lazarus index 1 QU*D"),
		[]byte("<math><annotation-xml encoding=text/html><svg><style></body>"),
	}
	paths, _ := filepath.Glob("testdata/*.html")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	return seeds
}

// FuzzScan checks that the scanner never panics, reports comments in page
// order within the page, and that every intact comment it finds re-armors
// to a comment that scans back to the same payload.
func FuzzScan(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	page, _ := damagePage(f)
	f.Add(page)
	f.Add(bytes.ReplaceAll(page, []byte("\n"), nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		prev := -1
		for _, fd := range Scan(data) {
			if fd.Offset <= prev || fd.End < fd.Offset+len(opener) || fd.End > len(data) ||
				!bytes.HasPrefix(data[fd.Offset:], []byte(opener)) {
				t.Fatalf("bad offsets %d..%d after %d in %d bytes", fd.Offset, fd.End, prev, len(data))
			}
			prev = fd.Offset
			if fd.Err != nil {
				continue
			}
			if !fd.Kind.known() || fd.Version != Version || len(fd.Payload) == 0 {
				t.Fatalf("intact comment with kind %q version %d, %d bytes", fd.Kind, fd.Version, len(fd.Payload))
			}
			c, err := Armor(fd.Kind, fd.Payload)
			if err != nil {
				t.Fatal(err)
			}
			again := Scan(c)
			if len(again) != 1 || again[0].Kind != fd.Kind || !bytes.Equal(again[0].Payload, fd.Payload) {
				t.Fatalf("re-armored comment scans to %+v", again)
			}
			// The comment alone scans to the same payload.
			alone := Scan(data[fd.Offset:fd.End])
			if len(alone) == 0 || !bytes.Equal(alone[0].Payload, fd.Payload) {
				t.Fatalf("comment alone scans to %+v", alone)
			}
		}
	})
}

// FuzzInsert checks, for arbitrary pages and payloads, that Insert never
// fails or panics, is idempotent, is undone by Strip, that x/net/html's
// parser sees the inserted comments as comment nodes, and that the result
// scans to exactly the inserted payloads when the page had no "lazarus".
func FuzzInsert(f *testing.F) {
	for i, s := range fuzzSeeds(f) {
		f.Add(s, testPayload(uint64(i), 10+i), []byte{})
	}
	f.Add([]byte("<body></body>"), []byte("a"), []byte("bc"))
	f.Fuzz(func(t *testing.T, page, p1, p2 []byte) {
		var comments, payloads [][]byte
		for i, p := range [][]byte{p1, p2} {
			if len(p) == 0 {
				continue
			}
			kind := []Kind{KindManifest, KindBlock}[i]
			comments = append(comments, mustArmor(t, kind, p))
			payloads = append(payloads, p)
		}
		out, err := Insert(page, comments...)
		if err != nil {
			t.Fatal(err)
		}
		checkInsert(t, page, comments, out)
		// A browser-grade parser sees the inserted comments as comments.
		n := parsedComments(t, out)
		if bytes.Contains(page, []byte(magic)) {
			if n < len(comments) {
				t.Fatalf("html.Parse sees %d lazarus comment nodes, want at least %d", n, len(comments))
			}
			return
		}
		if n != len(comments) {
			t.Fatalf("html.Parse sees %d lazarus comment nodes, want %d", n, len(comments))
		}
		found := Scan(out)
		// A page that ends in what may be the start of a cut-off comment
		// ("<!--", "<!-- laz") is reported as truncated at the end.
		if n := len(found); n > 0 && found[n-1].Kind == "" && errors.Is(found[n-1].Err, ErrTruncated) {
			found = found[:n-1]
		}
		checkFound(t, found, payloads...)
	})
}
