package htmlblock

import (
	"strings"
	"testing"
)

func TestParseHeader(t *testing.T) {
	tests := []struct {
		in      string // after "<!--"
		st      headerStatus
		kind    Kind
		version int
		rest    string // the page from the body offset on, for headerOK
	}{
		{" lazarus block 1\nQUJD-->", headerOK, "block", 1, "\nQUJD-->"},
		{"lazarus block 1 QUJD-->", headerOK, "block", 1, " QUJD-->"},
		{"\r\n\tlazarus\fblock\r\n1\r\nQUJD-->", headerOK, "block", 1, "\r\nQUJD-->"},
		{" lazarus manifest 12 QUJD-->", headerOK, "manifest", 12, " QUJD-->"},
		{" lazarus block 007 x-->", headerOK, "block", 7, " x-->"},
		{" lazarus block 1-->", headerOK, "block", 1, "-->"},
		// The newline after the version was removed: one digit of version.
		{" lazarus block 1QUJD-->", headerOK, "block", 1, "QUJD-->"},
		{" lazarus block 12QUJD-->", headerOK, "block", 1, "2QUJD-->"},
		{" lazarus block 1+QUJD-->", headerOK, "block", 1, "+QUJD-->"},
		{" lazarus block 99999999999999999999 x -->", headerOK, "block", maxVersion, " x -->"},
		{" lazarus is great -->", headerNone, "", 0, ""},
		{"lazarus-->", headerNone, "", 0, ""},
		{" lazarusblock 1 QUJD-->", headerNone, "", 0, ""},
		{" lazarus Block 1 QUJD-->", headerNone, "", 0, ""},
		{" lazarus block one -->", headerNone, "", 0, ""},
		{" lazarus block1 QUJD-->", headerNone, "", 0, ""},
		{" lazarus block 1<p>", headerNone, "", 0, ""},
		{" lazarus block 1!", headerNone, "", 0, ""},
		{" Lazarus block 1 QUJD-->", headerNone, "", 0, ""},
		{" x lazarus block 1 QUJD-->", headerNone, "", 0, ""},
		{" lazarus " + strings.Repeat("k", MaxKindLen+1) + " 1 QUJD-->", headerNone, "", 0, ""},
		{"", headerTruncated, "", 0, ""},
		{"   ", headerTruncated, "", 0, ""},
		{" laza", headerTruncated, "", 0, ""},
		{" lazarus", headerTruncated, "", 0, ""},
		{" lazarus blo", headerTruncated, "", 0, ""},
		{" lazarus block", headerTruncated, "", 0, ""},
		{" lazarus block ", headerTruncated, "block", 0, ""},
		{" lazarus block 1", headerTruncated, "block", 0, ""},
		{" lazarus block 1-", headerTruncated, "block", 0, ""},
		{" lazarus block 1--", headerTruncated, "block", 0, ""},
	}
	for _, tt := range tests {
		p := []byte("<!--" + tt.in)
		h, next, st := parseHeader(p, 4)
		if st != tt.st {
			t.Errorf("%q: status %d, want %d", tt.in, st, tt.st)
			continue
		}
		if st != headerNone && (h.kind != tt.kind || h.version != tt.version) {
			t.Errorf("%q: kind %q version %d, want %q %d", tt.in, h.kind, h.version, tt.kind, tt.version)
		}
		if st == headerOK && (string(p[h.body:]) != tt.rest || next != h.body) {
			t.Errorf("%q: body starts at %q (next %d), want %q", tt.in, p[h.body:], next, tt.rest)
		}
		if st == headerNone && (next < 4 || strings.Contains(string(p[4:next]), "<!--")) {
			t.Errorf("%q: resume offset %d is not past the opener", tt.in, next)
		}
	}
}

func TestMatchComment(t *testing.T) {
	tests := []struct {
		c    string
		want bool
	}{
		{"<!-- lazarus block 1\nQUJD\n-->", true},
		{"<!--lazarus block 1 QUJD-->", true},
		{"<!-- lazarus future 9 QU JD -->", true},
		{"<!-- lazarus block 1\nQUI=\n-->", true},
		{"<!-- lazarus block 1\nQQ==\n-->", true},
		{"<!-- lazarus block 1QUJD-->", true},
		{"<!-- lazarus block 1 -->", false},      // empty body
		{"<!-- lazarus block 1 QUJ -->", false},  // not a multiple of 4
		{"<!-- lazarus block 1 QR== -->", false}, // stray bits
		{"<!-- lazarus block 1 QQ=A -->", false}, // bad padding
		{"<!-- lazarus block 1 QQ==QUJD -->", false},
		{"<!-- lazarus block 1 QU*D -->", false},
		{"<!-- lazarus block 1 QUJD --!>", false},
		{"<!-- lazarus block 1 QUJD", false},
		{"<!-- lazarus block 1 QUJD -->\n", false},
		{"<!-- lazarus block 1 QUJD --><!-- lazarus block 1 QUJD -->", false},
		{"<!-- lazarus is great -->", false},
		{" <!-- lazarus block 1 QUJD -->", false},
	}
	for _, tt := range tests {
		if got, _ := matchComment([]byte(tt.c), nil); got != tt.want {
			t.Errorf("matchComment(%q) = %v, want %v", tt.c, got, tt.want)
		}
	}
}
