package contentcoding

import (
	"bufio"
	"strings"
	"testing"
)

// TestLooksChunked: chunked framing is recognised by its first size line
// and by the line end where the first chunk's data ends; a coded body
// that merely starts like a size line (a brotli stream starting "B\r\n")
// is not.
func TestLooksChunked(t *testing.T) {
	for _, tc := range []struct {
		body string
		want bool
	}{
		{"5\r\nhello\r\n0\r\n\r\n", true},
		{"5;name=v\r\nhello\r\n0\r\n\r\n", true},
		{"5 \nhello\n0\n\n", true}, // LF line ends, a blank before them
		{"0\r\n\r\n", true},
		{"1f4\r\n" + strings.Repeat("x", 100), false}, // the body ends before the chunk would
		{"5\r", false},
		{"B\r\n\x8b\x02\x80hello world\x03", false}, // 11 bytes of data, then no line end
		{"B\r\x8b\x02", false},                      // a CR that ends no line
		{"<html>", false},
		{"cafe\n<html>", false},
		{"12345678901234567\r\n", false}, // more hex digits than any size
		{"", false},
	} {
		if got := LooksChunked(bufio.NewReader(strings.NewReader(tc.body))); got != tc.want {
			t.Errorf("LooksChunked(%q) = %v, want %v", tc.body, got, tc.want)
		}
	}
}
