package ignore

import (
	"strings"
	"testing"
)

// TestClasses checks each named class byte by byte against a spelled-out
// member list (git's ASCII ctype table).
func TestClasses(t *testing.T) {
	var upper, lower, digit, punct, cntrl string
	for c := range 128 {
		switch b := byte(c); {
		case b >= 'A' && b <= 'Z':
			upper += string(b)
		case b >= 'a' && b <= 'z':
			lower += string(b)
		case b >= '0' && b <= '9':
			digit += string(b)
		case b < 0x20 || b == 0x7f:
			cntrl += string(b)
		case b != ' ':
			punct += string(b)
		}
	}
	if punct != "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~" {
		t.Fatalf("test bug: punct = %q", punct)
	}
	for name, members := range map[string]string{
		"alnum":  digit + upper + lower,
		"alpha":  upper + lower,
		"blank":  " \t",
		"cntrl":  cntrl,
		"digit":  digit,
		"graph":  digit + upper + lower + punct,
		"lower":  lower,
		"print":  " " + digit + upper + lower + punct,
		"punct":  punct,
		"space":  " \t\n\r",
		"upper":  upper,
		"xdigit": digit + "ABCDEFabcdef",
	} {
		set, next, err := parseSet("[[:"+name+":]]", 0)
		if err != nil || next != len(name)+6 {
			t.Fatalf("[:%s:]: next %d, %v", name, next, err)
		}
		for c := range 256 {
			if want := strings.IndexByte(members, byte(c)) >= 0; set.has(byte(c)) != want {
				t.Errorf("[:%s:] has %q: %v, want %v", name, byte(c), !want, want)
			}
		}
	}
}

// TestParseSetEnd checks where sets end and which bytes they hold.
func TestParseSetEnd(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		next    int
		members string
		negated bool
	}{
		{"[a]x", 3, "a", false},
		{"[]]", 3, "]", false},
		{"[!]]", 4, "]", true},
		{"[^a-c]", 6, "abc", true},
		{"[z-a]", 5, "z", false}, // z itself, then an empty range
		{"[[:]]", 4, "[:", false},
		{`[\]]`, 4, "]", false},
		{"[a-]", 4, "a-", false},
		{"[é]", 4, "\xc3\xa9", false},
	} {
		set, next, err := parseSet(tc.pattern, 0)
		if err != nil || next != tc.next {
			t.Errorf("parseSet(%q) = next %d, %v; want %d", tc.pattern, next, err, tc.next)
			continue
		}
		for c := range 256 {
			want := (strings.IndexByte(tc.members, byte(c)) >= 0) != tc.negated
			if set.has(byte(c)) != want {
				t.Errorf("parseSet(%q) has %q: %v, want %v", tc.pattern, byte(c), !want, want)
			}
		}
	}
}
