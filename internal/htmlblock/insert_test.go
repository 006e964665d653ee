package htmlblock

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// goldenComments returns the comments inserted into the golden pages.
func goldenComments(t testing.TB) (comments, payloads [][]byte) {
	payloads = [][]byte{testPayload(1, 90), testPayload(2, 120)}
	comments = [][]byte{mustArmor(t, KindManifest, payloads[0]), mustArmor(t, KindBlock, payloads[1])}
	return comments, payloads
}

// TestInsertGolden inserts two comments into each testdata/*.html page and
// compares the result with testdata/*.golden.
func TestInsertGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/*.html")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	comments, payloads := goldenComments(t)
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".html")
		t.Run(name, func(t *testing.T) {
			page, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Insert(page, comments...)
			if err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(in, ".html") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Insert output differs from %s:\n%s", golden, got)
			}
			checkInsert(t, page, comments, got)
			checkFound(t, Scan(got), payloads...)
			if n := parsedComments(t, got); n != len(comments) {
				t.Errorf("html.Parse sees %d lazarus comment nodes, want %d", n, len(comments))
			}
		})
	}
}

// parsedComments counts the Lazarus comment nodes that the x/net/html
// parser, as a browser would, builds from page.
func parsedComments(t testing.TB, page []byte) int {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for node := range doc.Descendants() {
		if node.Type != html.CommentNode {
			continue
		}
		if ok, _ := matchComment([]byte("<!--"+node.Data+"-->"), nil); ok {
			n++
		}
	}
	return n
}

// checkInsert checks the properties Insert promises for out = Insert(page,
// comments...).
func checkInsert(t testing.TB, page []byte, comments [][]byte, out []byte) {
	t.Helper()
	stripped := Strip(page)
	if again, err := Insert(out, comments...); err != nil || !bytes.Equal(again, out) {
		t.Errorf("inserting twice differs from inserting once (%v):\n%q\n%q", err, out, again)
	}
	if s := Strip(out); !bytes.Equal(s, stripped) {
		t.Errorf("Strip(Insert(p)) != Strip(p):\n%q\n%q", s, stripped)
	}
	if s := Strip(stripped); !bytes.Equal(s, stripped) {
		t.Errorf("Strip is not idempotent:\n%q\n%q", s, stripped)
	}
	if none, err := Insert(page); err != nil || !bytes.Equal(none, stripped) {
		t.Errorf("inserting nothing differs from Strip (%v)", err)
	}
}

// TestInsertionPoint checks where comments go; "|" marks the expected spot
// and is removed from the page.
func TestInsertionPoint(t *testing.T) {
	tests := []struct{ name, page string }{
		{"normal", "<html><body><p>x</p>|</body></html>"},
		{"last of two body end tags", "<body>a</body>b|</body>c"},
		{"upper case", "<HTML><BODY>x|</BODY></HTML>"},
		{"mixed case with attributes", "<body>x|</Body foo=bar ></html>"},
		{"no body end tag", "<html><p>x|</html>\n"},
		{"neither end tag", "<p>x</p>\n|"},
		{"empty page", "|"},
		{"only text", "hello|"},
		{"text ending in <", "<p>x<|"},
		{"script", "<body>|</body><script>'</body>'</script>"},
		{"script with escaped comment", "<body>|</body><script><!-- '<script></body></script>' --></script>"},
		{"style", "<body>|</body><style>/* </body> */</style>"},
		{"textarea", "<body>|</body><textarea></body></textarea>"},
		{"title", "<body>|</body><title></body></title>"},
		{"xmp iframe noembed noframes noscript", "<body>|</body><xmp></body></xmp><iframe></body></iframe><noembed></body></noembed><noframes></body></noframes><noscript></body></noscript>"},
		{"plaintext", "<p>x|<plaintext></body></html>"},
		{"template", "<body>|</body><template></body></template>"},
		{"nested template", "<body>|</body><template><template></template></body></template>"},
		{"self-closing template still opens", "<body>|</body><template/></body></template>"},
		{"comment", "<body>|</body><!-- </body> -->"},
		{"bogus comment", "<body>|</body><? </body> ?>"},
		{"svg CDATA", "<body>|</body><svg><text><![CDATA[ > </body> ]]></text></svg>"},
		{"CDATA outside foreign content is a bogus comment", "<p><![CDATA[ > |</body> ]]>"},
		{"svg style is not raw text", "<svg><style>|</body></style></svg>"},
		{"svg title is not raw text", "<svg><title>|</body></title></svg>"},
		{"self-closing svg opens nothing", "<svg/><script>'</body>'</script>|</body>"},
		{"script in foreignObject is raw text", "<body>|</body><svg><foreignObject><script>'</body>'</script></foreignObject></svg>"},
		{"breakout from svg", "<body>|</body><svg><p><style></body></style>"},
		{"math annotation-xml with HTML", "<body>|</body><math><annotation-xml encoding=\"Text/HTML\"><script>'</body>'</script></annotation-xml></math>"},
		{"math text integration point", "<body>|</body><math><mi><style></body></style></mi></math>"},
		{"math CDATA", "<body>|</body><math><mn><mglyph><![CDATA[ > </body> ]]></mglyph></mn></math>"},
		{"template closed inside svg", "<template><svg></template>|</body>"},
		// The page ends inside something unfinished: insert before it.
		{"unclosed script", "<p>x|<script>var a;"},
		{"script start tag at end", "<p>x|<script>"},
		{"script end tag cut", "<p>x</p>|<script></script"},
		{"script body and end tag cut", "<p>x</p>|<script>a</scr"},
		{"unclosed title", "<p>x|<title>abc"},
		{"cut tag", "<p>x</p>|<div class=\"a"},
		{"cut end tag", "<p>x</p>|</di"},
		{"text ending in </", "<p>x</p>tail|</"},
		{"unterminated comment", "<p>x</p>|<!-- never closed"},
		{"unterminated comment ending in dashes", "<p>x</p>|<!-- a --"},
		{"unterminated comment ending in >", "<p>x</p>|<!-- a >"},
		{"unterminated bogus comment", "<p>x</p>|<?php echo 1;"},
		{"unterminated doctype", "|<!DOCTYPE html"},
		{"unterminated CDATA", "<svg>|<![CDATA[ x"},
		{"closed comments at end", "<p>x</p><!----><!--><!--->|"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := strings.Index(tt.page, "|")
			page := []byte(strings.Replace(tt.page, "|", "", 1))
			_, l := strip(page)
			if got := l.insertionPoint(); got != want {
				t.Errorf("insertion point %d, want %d: %q|%q", got, want, page[:got], page[got:])
			}
			comments, _ := goldenComments(t)
			out, err := Insert(page, comments...)
			if err != nil {
				t.Fatal(err)
			}
			checkInsert(t, page, comments, out)
			if n := parsedComments(t, out); n != len(comments) {
				t.Errorf("html.Parse sees %d lazarus comment nodes, want %d", n, len(comments))
			}
		})
	}
}

func TestStrip(t *testing.T) {
	c := "<!-- lazarus block 1\nQUJD\n-->"
	tests := []struct{ name, page, want string }{
		{"comment with its newline", "a" + c + "\nb", "ab"},
		{"only one newline", "a" + c + "\n\nb", "a\nb"},
		{"no newline", "a" + c + "b", "ab"},
		{"CR LF keeps both", "a" + c + "\r\nb", "a\r\nb"},
		{"several", c + "\n" + c + "\n" + c, ""},
		{"unknown kind and version", "a<!-- lazarus future 7 QUJD -->b", "ab"},
		{"glued version", "a<!-- lazarus block 1QUJD-->b", "ab"},
		{"inside template", "<template>" + c + "</template>", "<template></template>"},
		{"inside svg", "<svg>" + c + "\n</svg>", "<svg></svg>"},
		{"removal forms a new comment", "<<!-- lazarus block 1 QUJD -->!-- lazarus block 1 QUJD -->", ""},
		{"removal forms a real end tag", "<<!-- lazarus block 1 QUJD -->/body>", "</body>"},
		{"kept: in script", "<script>'" + c + "'</script>", ""},
		{"kept: in style", "<style>" + c + "</style>", ""},
		{"kept: in textarea", "<textarea>" + c + "</textarea>", ""},
		{"kept: in title", "<title>" + c + "</title>", ""},
		{"kept: inside another comment", "<!-- x " + c + " -->", ""},
		{"kept: in svg CDATA", "<svg><![CDATA[" + c + "]]></svg>", ""},
		{"kept: corrupt body", "<!-- lazarus block 1 QU*D -->", ""},
		{"kept: empty body", "<!-- lazarus block 1 -->", ""},
		{"kept: unterminated", "<!-- lazarus block 1 QUJD", ""},
		{"kept: closed by --!>", "<!-- lazarus block 1 QUJD --!>", ""},
		{"kept: foreign", "<!-- lazarus is great -->\n<!-- BEGIN WAYBACK TOOLBAR INSERT -->", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if strings.HasPrefix(tt.name, "kept") {
				want = tt.page
			}
			if got := Strip([]byte(tt.page)); string(got) != want {
				t.Errorf("Strip(%q) = %q, want %q", tt.page, got, want)
			}
		})
	}
}

func TestInsertRejectsNonComments(t *testing.T) {
	good := mustArmor(t, KindBlock, []byte("x"))
	for _, c := range []string{
		"",
		"<p>",
		"<!-- lazarus is great -->",
		string(good) + "\n",
		" " + string(good),
		string(good) + string(good),
		"<!-- lazarus block 1 QU*D -->",
		"<!-- lazarus block 1 QUJD",
	} {
		if out, err := Insert([]byte("<body></body>"), good, []byte(c)); err == nil {
			t.Errorf("Insert accepted %q: %q", c, out)
		}
	}
}

func TestInsertManyComments(t *testing.T) {
	page := []byte("<html><body><p>x</p></body></html>")
	var comments, payloads [][]byte
	for i := range 40 {
		p := testPayload(uint64(i), 1+i*37)
		payloads = append(payloads, p)
		comments = append(comments, mustArmor(t, KindBlock, p))
	}
	out, err := Insert(page, comments...)
	if err != nil {
		t.Fatal(err)
	}
	checkInsert(t, page, comments, out)
	checkFound(t, Scan(out), payloads...)
	// Re-injecting different comments replaces the old ones.
	out2, err := Insert(out, comments[3])
	if err != nil {
		t.Fatal(err)
	}
	checkFound(t, Scan(out2), payloads[3])
}

// TestStripDeepNesting strips a page in which every removal joins the bytes
// around it into a new Lazarus comment, k levels deep. Stripping by repeated
// passes would take quadratic time and time out.
func TestStripDeepNesting(t *testing.T) {
	k := 20000
	if raceEnabled {
		k = 2000
	}
	c := "<!-- lazarus block 1 QUJD -->"
	page := strings.Repeat("<", k) + c + strings.Repeat(c[1:], k) + "</body>"
	if got := Strip([]byte(page)); string(got) != "</body>" {
		t.Fatalf("Strip left %d bytes: %.80q", len(got), got)
	}
	out, err := Insert([]byte(page), []byte(c))
	if err != nil || string(out) != c+"\n</body>" {
		t.Fatalf("Insert = %.80q, %v", out, err)
	}
}
