package site

import (
	"bytes"
	"strings"
	"testing"
)

func TestSetNotice(t *testing.T) {
	const text = "Updated 2026-11-21"
	tests := []struct {
		name, page, want string
	}{
		{"inserted before </body>",
			"<html><body><p>x</p></body></html>",
			"<html><body><p>x</p><p data-lazarus-notice=\"\">Updated 2026-11-21</p>\n</body></html>"},
		{"last </body>",
			"<body>a</body><!-- </body> --></BODY>\n",
			"<body>a</body><!-- </body> --><p data-lazarus-notice=\"\">Updated 2026-11-21</p>\n</BODY>\n"},
		{"</body> in a template does not count",
			"<body><template></body></template>x</html>",
			"<body><template></body></template>x<p data-lazarus-notice=\"\">Updated 2026-11-21</p>\n</html>"},
		{"</body> in a script does not count",
			"<body><script>'</body>'</script>",
			"<body><script>'</body>'</script><p data-lazarus-notice=\"\">Updated 2026-11-21</p>\n"},
		{"no body: at the end",
			"<p>fragment</p>",
			"<p>fragment</p><p data-lazarus-notice=\"\">Updated 2026-11-21</p>\n"},
		{"unclosed script: before it",
			"<p>a</p><script>var x = 1;",
			"<p>a</p><p data-lazarus-notice=\"\">Updated 2026-11-21</p>\n<script>var x = 1;"},
		{"unclosed comment: before it",
			"<p>a</p><!-- unfinished",
			"<p>a</p><p data-lazarus-notice=\"\">Updated 2026-11-21</p>\n<!-- unfinished"},
		{"cut-off tag: before it",
			"<p>a</p><div class=",
			"<p>a</p><p data-lazarus-notice=\"\">Updated 2026-11-21</p>\n<div class="},
		{"empty page",
			"",
			"<p data-lazarus-notice=\"\">Updated 2026-11-21</p>\n"},
		{"existing element replaced",
			"<body><div class=n data-lazarus-notice>Updated 2020-01-01</div></body>",
			"<body><div class=n data-lazarus-notice>Updated 2026-11-21</div></body>"},
		{"first element only",
			"<p data-lazarus-notice=\"\">old</p><p data-lazarus-notice>other</p>",
			"<p data-lazarus-notice=\"\">Updated 2026-11-21</p><p data-lazarus-notice>other</p>"},
		{"children replaced",
			"<div data-lazarus-notice><div><b>old</b></div> more</div><div>after</div>",
			"<div data-lazarus-notice>Updated 2026-11-21</div><div>after</div>"},
		{"upper-case tags",
			"<SPAN DATA-LAZARUS-NOTICE>old</SPAN>",
			"<SPAN DATA-LAZARUS-NOTICE>Updated 2026-11-21</SPAN>"},
		{"element in a template does not count",
			"<template><p data-lazarus-notice>t</p></template></body>",
			"<template><p data-lazarus-notice>t</p></template><p data-lazarus-notice=\"\">Updated 2026-11-21</p>\n</body>"},
		{"empty element",
			"<footer><small data-lazarus-notice></small></footer>",
			"<footer><small data-lazarus-notice>Updated 2026-11-21</small></footer>"},
		{"lazarus comments untouched",
			"<body><p data-lazarus-notice>x</p>\n<!-- lazarus block 1\nQUJD\n-->\n</body>",
			"<body><p data-lazarus-notice>Updated 2026-11-21</p>\n<!-- lazarus block 1\nQUJD\n-->\n</body>"},
	}
	// Without a notice element, the page must be stripped first: the new
	// element goes where the comments would.
	if _, _, err := SetNotice([]byte("<body><p>x</p>\n<!-- lazarus block 1\nQUJD\n-->\n</body>"), text); err == nil {
		t.Error("SetNotice inserted a notice into a page carrying Lazarus comments")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, changed, err := SetNotice([]byte(tt.page), text)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.want || changed != (tt.page != tt.want) {
				t.Fatalf("got %v\n%s\nwant\n%s", changed, out, tt.want)
			}
			// Setting the same text again changes nothing.
			again, changed, err := SetNotice(out, text)
			if err != nil || changed || !bytes.Equal(again, out) {
				t.Errorf("second call: changed %v, err %v:\n%s", changed, err, again)
			}
		})
	}
}

func TestSetNotice_Escaping(t *testing.T) {
	page := []byte("<body>\n</body>")
	out, changed, err := SetNotice(page, `Fish & "chips" <b>'s</b>`)
	if err != nil || !changed {
		t.Fatal(changed, err)
	}
	want := "<body>\n<p data-lazarus-notice=\"\">Fish &amp; &#34;chips&#34; &lt;b&gt;&#39;s&lt;/b&gt;</p>\n</body>"
	if string(out) != want {
		t.Errorf("got %s, want %s", out, want)
	}
	// A text that looks like the escaped one is different.
	out2, changed, err := SetNotice(out, "Fish &amp; chips")
	if err != nil || !changed || !strings.Contains(string(out2), ">Fish &amp;amp; chips<") {
		t.Errorf("got %v %v %s", changed, err, out2)
	}
}

func TestSetNotice_Errors(t *testing.T) {
	tests := []struct{ name, page, text string }{
		{"void element", "<br data-lazarus-notice>", "x"},
		{"self-closing", "<p data-lazarus-notice/>", "x"},
		{"no end tag", "<p data-lazarus-notice>old<p>new paragraph", "x"},
		{"invalid UTF-8", "<body></body>", "\xff"},
		{"NUL", "<body></body>", "a\x00b"},
	}
	for _, tt := range tests {
		if out, _, err := SetNotice([]byte(tt.page), tt.text); err == nil {
			t.Errorf("%s: succeeded with %q", tt.name, out)
		}
	}
}
