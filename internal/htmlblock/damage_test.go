package htmlblock

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"
)

// damagePage returns a page with three armored comments and their payloads.
func damagePage(t testing.TB) (page []byte, payloads [][]byte) {
	t.Helper()
	payloads = [][]byte{testPayload(11, 150), testPayload(12, 100), testPayload(13, 120)}
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html>\n<head><title>damage</title></head>\n<body>\n<p>text</p>\n")
	b.Write(mustArmor(t, KindManifest, payloads[0]))
	b.WriteString("\n<p>between</p>\n")
	b.Write(mustArmor(t, KindBlock, payloads[1]))
	b.WriteString("\n")
	b.Write(mustArmor(t, KindBlock, payloads[2]))
	b.WriteString("\n</body>\n</html>\n")
	return b.Bytes(), payloads
}

var (
	spaceRun = regexp.MustCompile(`[ \t\r\n\f]+`)
	bodyRe   = regexp.MustCompile(`(?s)(<!-- lazarus [a-z]+ 1)\n(.*?)-->`)
)

// rewrap re-wraps every comment body at n columns.
func rewrap(page []byte, n int) []byte {
	return bodyRe.ReplaceAllFunc(page, func(m []byte) []byte {
		sub := bodyRe.FindSubmatch(m)
		body := strings.ReplaceAll(string(sub[2]), "\n", "")
		var b strings.Builder
		b.Write(sub[1])
		for len(body) > 0 {
			k := min(n, len(body))
			b.WriteString("\n" + body[:k])
			body = body[k:]
		}
		b.WriteString("\n-->")
		return []byte(b.String())
	})
}

func TestScanDamage(t *testing.T) {
	page, payloads := damagePage(t)
	found := Scan(page)
	checkFound(t, found, payloads...)
	second, third := found[1], found[2]

	// Cutting the page anywhere in the second comment reports it as
	// truncated (once its "<!--" is complete) and leaves the first intact.
	t.Run("truncated at every offset", func(t *testing.T) {
		for cut := second.Offset + 1; cut < second.End; cut++ {
			got := Scan(page[:cut])
			if cut < second.Offset+len(opener) {
				checkFound(t, got, payloads[0])
				continue
			}
			if len(got) != 2 || got[0].Err != nil || !bytes.Equal(got[0].Payload, payloads[0]) {
				t.Fatalf("cut at %d: first comment not intact: %v", cut, errs(got))
			}
			if !errors.Is(got[1].Err, ErrTruncated) || got[1].Offset != second.Offset || got[1].Payload != nil {
				t.Fatalf("cut at %d: second comment %+v, want ErrTruncated", cut, got[1])
			}
		}
	})

	// An invalid character in a body makes that comment corrupt; the
	// others are intact.
	t.Run("flipped base64 char to invalid char", func(t *testing.T) {
		for _, bad := range []byte("*!<>-\x00\xff.") {
			p := bytes.Clone(page)
			p[second.Offset+40] = bad
			got := Scan(p)
			if len(got) != 3 || !errors.Is(got[1].Err, ErrCorrupt) || got[1].Payload != nil {
				t.Fatalf("%q: got %v, want the second corrupt", bad, errs(got))
			}
			checkFound(t, []Found{got[0], got[2]}, payloads[0], payloads[2])
		}
	})

	// A valid character swapped for another decodes to a different payload:
	// the scanner cannot tell; the caller's hash check must.
	t.Run("flipped base64 char to another valid char", func(t *testing.T) {
		p := bytes.Clone(page)
		i := second.Offset + 40
		p[i] ^= 'A' ^ 'B'
		if class[p[i]] != classBase64 {
			t.Skip("flip left the alphabet")
		}
		got := Scan(p)
		if len(got) != 3 || got[1].Err != nil || bytes.Equal(got[1].Payload, payloads[1]) {
			t.Fatalf("got %v, want an intact-looking different payload", errs(got))
		}
	})

	// Minifiers may collapse all whitespace, inside comments too.
	t.Run("whitespace collapsed to single spaces", func(t *testing.T) {
		checkFound(t, Scan(spaceRun.ReplaceAll(page, []byte(" "))), payloads...)
	})

	t.Run("CRLF line endings", func(t *testing.T) {
		checkFound(t, Scan(bytes.ReplaceAll(page, []byte("\n"), []byte("\r\n"))), payloads...)
	})

	// The version digit then runs straight into the base64 text.
	t.Run("all newlines removed", func(t *testing.T) {
		checkFound(t, Scan(bytes.ReplaceAll(page, []byte("\n"), nil)), payloads...)
	})

	t.Run("re-wrapped at 40 columns", func(t *testing.T) {
		p := rewrap(page, 40)
		if bytes.Equal(p, page) {
			t.Fatal("rewrap changed nothing")
		}
		checkFound(t, Scan(p), payloads...)
	})

	t.Run("re-wrapped at 1 column with tabs and form feeds", func(t *testing.T) {
		p := bytes.ReplaceAll(rewrap(page, 1), []byte("\n"), []byte("\t\f"))
		checkFound(t, Scan(p), payloads...)
	})

	// Archives add comments of their own around and between ours.
	t.Run("wayback toolbar comments before and after", func(t *testing.T) {
		toolbar := "<!-- BEGIN WAYBACK TOOLBAR INSERT -->\n<div id=\"wm-ipp\">x</div>\n<!-- END WAYBACK TOOLBAR INSERT -->\n"
		footer := "\n<!--\n     FILE ARCHIVED ON 12:00:00 Jan 01, 2024 AND RETRIEVED FROM THE\n     INTERNET ARCHIVE ON 12:00:00 Jan 01, 2044.\n-->\n"
		p := bytes.Replace(page, []byte("<body>\n"), []byte("<body>\n"+toolbar), 1)
		p = bytes.Replace(p, []byte("\n<p>between</p>\n"), []byte("\n"+toolbar), 1)
		p = append(p, footer...)
		checkFound(t, Scan(p), payloads...)
	})

	// Our comment quoted inside a foreign comment is still found.
	t.Run("inside a foreign comment", func(t *testing.T) {
		c := page[second.Offset:second.End]
		p := []byte("<!-- old: " + string(c) + " -->")
		checkFound(t, Scan(p), payloads[1])
	})

	t.Run("inside a script string", func(t *testing.T) {
		p := []byte("<script>var s = `" + string(page[second.Offset:second.End]) + "`;</script>")
		checkFound(t, Scan(p), payloads[1])
	})

	t.Run("Latin-1 and invalid UTF-8 around", func(t *testing.T) {
		junk := []byte("caf\xe9 \xff\xfe\xc3\x28 \xa0\x80<\x00!")
		var p []byte
		for _, c := range found {
			p = append(p, junk...)
			p = append(p, page[c.Offset:c.End]...)
		}
		p = append(p, junk...)
		checkFound(t, Scan(p), payloads...)
	})

	// A comment whose "-->" was lost runs into the next one: it is
	// corrupt, and the next one is intact.
	t.Run("closer lost before the next comment", func(t *testing.T) {
		p := append(bytes.Clone(page[:second.End-len(closer)]), page[third.Offset:]...)
		got := Scan(p)
		if len(got) != 3 || !errors.Is(got[1].Err, ErrCorrupt) {
			t.Fatalf("got %v, want the second corrupt", errs(got))
		}
		checkFound(t, []Found{got[0], got[2]}, payloads[0], payloads[2])
	})

	// A version this program does not know is reported, not decoded.
	t.Run("unknown version", func(t *testing.T) {
		p := bytes.Replace(page, []byte("lazarus block 1"), []byte("lazarus block 2"), 1)
		got := Scan(p)
		if len(got) != 3 || !errors.Is(got[1].Err, ErrUnknownVersion) || got[1].Version != 2 || got[1].Payload != nil {
			t.Fatalf("got %+v, want the second with ErrUnknownVersion", got[1])
		}
		checkFound(t, []Found{got[0], got[2]}, payloads[0], payloads[2])
	})

	// An unknown kind is reported with its payload decoded.
	t.Run("unknown kind", func(t *testing.T) {
		p := bytes.Replace(page, []byte("lazarus block 1"), []byte("lazarus index 1"), 1)
		got := Scan(p)
		if len(got) != 3 || !errors.Is(got[1].Err, ErrUnknownKind) || got[1].Kind != "index" || !bytes.Equal(got[1].Payload, payloads[1]) {
			t.Fatalf("got %+v, want the second with ErrUnknownKind", got[1])
		}
	})
}

// TestScanLargePage scans a 5 MB page holding 50 comments.
func TestScanLargePage(t *testing.T) {
	const comments, size = 50, 5 << 20
	filler := bytes.Repeat([]byte("<p>Lorem ipsum dolor sit amet, <b>consectetur</b> adipiscing.</p>\n"), 600)
	var page []byte
	var payloads [][]byte
	for i := range comments {
		page = append(page, filler...)
		p := testPayload(uint64(100+i), 50_000+i)
		payloads = append(payloads, p)
		page = append(page, mustArmor(t, KindBlock, p)...)
	}
	page = append(page, filler...)
	if len(page) < size {
		page = append(page, bytes.Repeat([]byte{' '}, size-len(page))...)
	}
	found := Scan(page)
	checkFound(t, found, payloads...)
	for i := 1; i < len(found); i++ {
		if found[i].Offset <= found[i-1].End {
			t.Fatalf("comments %d and %d overlap or are out of order", i-1, i)
		}
	}
}
