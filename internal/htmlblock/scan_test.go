package htmlblock

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestScanNotLazarus(t *testing.T) {
	pages := []string{
		"",
		"<html><body>no comments</body></html>",
		"<!-- lazarus is great -->",
		"<!--lazarus-->",
		"<!-- lazarus -->",
		"<!-- lazarusblock 1 QUJD -->",
		"<!-- lazarus Block 1 QUJD -->",
		"<!-- lazarus block one QUJD -->",
		"<!-- x lazarus block 1 QUJD -->",
		"<! -- lazarus block 1 QUJD -->",
		"<!- lazarus block 1 QUJD -->",
		"lazarus block 1 QUJD -->",
		"<!-- lazarus block 1<p> -->",
		"<!-- lazarus " + strings.Repeat("k", MaxKindLen+1) + " 1 QUJD -->",
		"<!-- <!-- <!-- <!-- <!-- x",
		"<!-",
		"<",
	}
	for _, p := range pages {
		if found := Scan([]byte(p)); len(found) != 0 {
			t.Errorf("Scan(%.60q) = %+v, want nothing", p, found)
		}
	}
}

func TestScanHeaderVariants(t *testing.T) {
	payload := []byte("ABC")
	for _, c := range []string{
		"<!--lazarus block 1\nQUJD\n-->",
		"<!--   lazarus   block   1   QUJD   -->",
		"<!--\tlazarus\tblock\t1\tQUJD\t-->",
		"<!--\r\nlazarus\r\nblock\r\n1\r\nQUJD\r\n-->",
		"<!--\flazarus\fblock\f1\fQUJD\f-->",
		"<!-- lazarus block 1 Q U J D -->",
		"<!-- lazarus block 01 QUJD -->",
		"<!-- lazarus block 1QUJD-->",
		"<!-- lazarus block 1 QUJD-->",
	} {
		found := Scan([]byte(c))
		if len(found) != 1 || found[0].Err != nil || !bytes.Equal(found[0].Payload, payload) {
			t.Errorf("Scan(%q) = %+v, want payload %q", c, found, payload)
		}
	}
}

func TestScanErrors(t *testing.T) {
	tests := []struct {
		name    string
		page    string
		want    error
		kind    Kind
		payload string // expected payload, even with an error
	}{
		// The page ends right after an opener: it may be ours, cut short.
		{"truncated after opener", "<p><!-- <!-- <!--", ErrTruncated, "", ""},
		// The page ends in the header: reported, kind unknown.
		{"truncated in magic", "<p><!-- laza", ErrTruncated, "", ""},
		// The page ends after the kind: the kind is known.
		{"truncated after kind", "<!-- lazarus manifest ", ErrTruncated, "manifest", ""},
		{"truncated in body", "<!-- lazarus block 1\nQUJD", ErrTruncated, "block", ""},
		{"truncated in closer", "<!-- lazarus block 1\nQUJD\n--", ErrTruncated, "block", ""},
		// A character outside the alphabet ends the body early.
		{"invalid character", "<!-- lazarus block 1 QU*D -->", ErrCorrupt, "block", ""},
		{"non-ASCII byte", "<!-- lazarus block 1 QU\xe9D -->", ErrCorrupt, "block", ""},
		{"closed with --!>", "<!-- lazarus block 1 QUJD --!>", ErrCorrupt, "block", ""},
		{"length not a multiple of 4", "<!-- lazarus block 1 QUJDQ -->", ErrCorrupt, "block", ""},
		{"stray bits", "<!-- lazarus block 1 QR== -->", ErrCorrupt, "block", ""},
		{"padding in the middle", "<!-- lazarus block 1 QQ==QUJD -->", ErrCorrupt, "block", ""},
		{"empty body", "<!-- lazarus block 1 -->", ErrCorrupt, "block", ""},
		{"version 2", "<!-- lazarus block 2 QUJD -->", ErrUnknownVersion, "block", ""},
		{"version 0", "<!-- lazarus block 0 QUJD -->", ErrUnknownVersion, "block", ""},
		{"version 2 unterminated", "<!-- lazarus block 2 QUJD", ErrUnknownVersion, "block", ""},
		// Unknown kinds are still decoded.
		{"unknown kind", "<!-- lazarus index 1 QUJD -->", ErrUnknownKind, "index", "ABC"},
		// Body errors come before kind errors.
		{"unknown kind and corrupt", "<!-- lazarus index 1 QU*D -->", ErrCorrupt, "index", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			found := Scan([]byte(tt.page))
			if len(found) != 1 {
				t.Fatalf("found %d comments, want 1", len(found))
			}
			f := found[0]
			if !errors.Is(f.Err, tt.want) {
				t.Errorf("Err = %v, want %v", f.Err, tt.want)
			}
			if f.Kind != tt.kind || string(f.Payload) != tt.payload {
				t.Errorf("kind %q payload %q, want %q %q", f.Kind, f.Payload, tt.kind, tt.payload)
			}
			if f.End < f.Offset || f.End > len(tt.page) {
				t.Errorf("End %d out of range", f.End)
			}
		})
	}
}

func TestScanVersionMessages(t *testing.T) {
	tests := []struct{ page, want string }{
		{"<!-- lazarus block 2 QUJD -->", "lazarus comment format version 2 is newer than this program understands (1); upgrade lazarus"},
		{"<!-- lazarus block 0 QUJD -->", "lazarus comment format version 0 is not supported by this program, which understands version 1"},
		{"<!-- lazarus block 123456789012345678901234 QUJD -->", "version 12345678901234567890… is newer"},
	}
	for _, tt := range tests {
		found := Scan([]byte(tt.page))
		if len(found) != 1 || found[0].Err == nil || !strings.Contains(found[0].Err.Error(), tt.want) {
			t.Errorf("Scan(%q) = %+v, want error containing %q", tt.page, found, tt.want)
		}
	}
}

func TestScanTooLarge(t *testing.T) {
	c := mustArmor(t, KindBlock, testPayload(1, 300)) // 400 characters
	next := mustArmor(t, KindBlock, []byte("next"))
	page := append(append(bytes.Clone(c), '\n'), next...)
	for _, tt := range []struct {
		limit int
		want  error
	}{
		{399, ErrTooLarge}, // one character over the limit
		{400, nil},         // exactly at the limit
	} {
		s := scanner{page: page, limit: tt.limit}
		f, ok := s.next()
		if !ok || !errors.Is(f.Err, tt.want) || f.Err == nil && len(f.Payload) != 300 {
			t.Errorf("limit %d: got %+v, want %v", tt.limit, f, tt.want)
		}
		// The comment after the oversized one is still found.
		if f, ok := s.next(); !ok || string(f.Payload) != "next" {
			t.Errorf("limit %d: next comment %+v", tt.limit, f)
		}
	}
}

func TestAllStopsEarly(t *testing.T) {
	var page []byte
	for i := range 5 {
		page = append(page, mustArmor(t, KindBlock, []byte{byte(i + 1)})...)
	}
	n := 0
	for f := range All(page) {
		if f.Payload[0] != byte(n+1) {
			t.Fatalf("comment %d has payload %v", n, f.Payload)
		}
		if n++; n == 2 {
			break
		}
	}
	if n != 2 {
		t.Fatalf("iterated %d times", n)
	}
}

// TestScanPathological feeds inputs that would take quadratic time if the
// scanner searched from each opener to the end of the page; they would time
// out rather than fail.
func TestScanPathological(t *testing.T) {
	const size = 4 << 20
	tests := []struct {
		name, unit string
		want       error // the error of every reported comment, nil if none is
	}{
		{"unterminated unknown versions", "<!-- lazarus block 2 ", ErrUnknownVersion},
		{"corrupt bodies", "<!-- lazarus block 1 QUJD*", ErrCorrupt},
		{"openers only", "<!--", nil},
		{"openers and whitespace", "<!--                ", nil},
		{"failing magic", "<!-- lazaru", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := bytes.Repeat([]byte(tt.unit), size/len(tt.unit))
			n := 0
			for f := range All(page) {
				n++
				if !errors.Is(f.Err, tt.want) && !(tt.want == nil && errors.Is(f.Err, ErrTruncated)) {
					t.Fatalf("comment at %d: %v", f.Offset, f.Err)
				}
			}
			if tt.want != nil && n != size/len(tt.unit) {
				t.Errorf("found %d comments, want %d", n, size/len(tt.unit))
			}
		})
	}
}
