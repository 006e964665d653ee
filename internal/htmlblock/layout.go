package htmlblock

import (
	"bytes"
	"io"

	"golang.org/x/net/html"
)

// layout is where Insert may put comments into a page without Lazarus
// comments. Offsets are into that page.
type layout struct {
	lastBody int // offset of the last top-level "</body>" tag, or -1
	lastHTML int // offset of the last top-level "</html>" tag, or -1
	end      int // where to insert when the page has neither tag
}

// insertionPoint returns where Insert puts comments into the page.
func (l *layout) insertionPoint() int {
	switch {
	case l.lastBody >= 0:
		return l.lastBody
	case l.lastHTML >= 0:
		return l.lastHTML
	}
	return l.end
}

// element is an open SVG or MathML element.
type element struct {
	name   string
	ns     string // "svg" or "math"
	island bool   // an integration point, whose start tags are HTML
}

// walker tokenizes a page with x/net/html in one pass, removing Lazarus
// comment tokens as it goes, and keeps the little tree state the tokenizer
// needs (CDATA only in foreign content, no raw text in foreign content).
//
// The output is out followed by the stream, prefix+rest, that the current
// tokenizer reads. Removing a comment commits the stream up to it to out and
// starts a new tokenizer after it, in the data state, as the comment was
// in. The only earlier token that the bytes after the comment can change is
// a text token ending in "<", which could now open a tag or comment: that
// "<" moves back from out to the new stream's prefix.
type walker struct {
	z       *html.Tokenizer
	out     []byte // output before the stream
	prefix  []byte // "<" or nothing
	rest    []byte // unread page
	removed bool   // a comment was removed
	count   int    // comments removed
	off     int    // output offset of the end of the current token

	foreign   []element // open foreign elements, outermost first
	templates []int     // len(foreign) at each open <template>
	scratch   []byte    // reused by matchComment
	name      []byte    // reused by tagName

	rawPending bool // the tokenizer reads raw text next
	prevRawish bool // the previous token is raw text or starts raw text
	lastSafe   int  // start of the last token that began at a safe boundary
	lastClean  bool // the last token ended without hitting the end of input
}

// strip returns page without Lazarus comment tokens, each taken with one
// "\n" after it if there is one, and the layout of the result.
//
// A safe boundary is a token start before which "<!--...-->\n" can be
// inserted without changing how the rest of the page tokenizes: every token
// start except right after raw text or a start tag that opens raw text,
// whose end depends on what follows.
func strip(page []byte) ([]byte, layout) {
	if out, l, ok := stripFast(page); ok {
		return out, l
	}
	out, l, _ := stripSlow(page)
	return out, l
}

// standIn replaces each intact Lazarus comment in stripFast. It matches
// the grammar, so the walker removes it as it would the comment.
const standIn = "<!-- lazarus block 1\nAAAA\n-->"

// stripFast strips a page whose Lazarus comments are all intact without
// making the tokenizer read their bodies, which is most of the work on a
// carrier page: it replaces each comment the scanner finds by a small
// stand-in and strips that page instead. The result is the same when the
// walker removes exactly the stand-ins: every comment it can remove starts
// with "<!--", optional whitespace and "lazarus", the scanner finds every
// such start, and those starts are all stand-ins now. Otherwise (a damaged
// comment, a stand-in inside a script or a foreign comment, a comment
// formed by joining bytes) it reports false and the caller strips the
// page itself.
func stripFast(page []byte) ([]byte, layout, bool) {
	var spans [][2]int
	saved := 0
	sc := scanner{page: page, limit: MaxBody, validateOnly: true}
	for {
		f, ok := sc.next()
		if !ok {
			break
		}
		if f.Err != nil {
			return nil, layout{}, false
		}
		spans = append(spans, [2]int{f.Offset, f.End})
		saved += f.End - f.Offset - len(standIn)
	}
	if saved < 4096 {
		return nil, layout{}, false
	}
	reduced := make([]byte, 0, len(page)-saved)
	prev := 0
	for _, s := range spans {
		reduced = append(append(reduced, page[prev:s[0]]...), standIn...)
		prev = s[1]
	}
	reduced = append(reduced, page[prev:]...)
	out, l, n := stripSlow(reduced)
	return out, l, n == len(spans)
}

// stripSlow strips page with the tokenizer and also returns how many
// comments it removed.
func stripSlow(page []byte) ([]byte, layout, int) {
	w := walker{rest: page, lastClean: true}
	l := layout{lastBody: -1, lastHTML: -1}
	for w.run(&l) {
	}
	out := page
	if w.removed {
		out = append(append(w.out, w.prefix...), w.rest...)
	}
	l.end = w.safeEnd(len(out))
	return out, l, w.count
}

// run tokenizes the stream to its end and returns false, or up to a Lazarus
// comment, which it removes, and returns true.
func (w *walker) run(l *layout) bool {
	base := len(w.out)
	w.off = base
	w.z = html.NewTokenizer(io.MultiReader(bytes.NewReader(w.prefix), bytes.NewReader(w.rest)))
	for {
		w.z.AllowCDATA(w.inForeign())
		tt := w.z.Next()
		if tt == html.ErrorToken {
			return false
		}
		raw := w.z.Raw()
		if tt == html.CommentToken {
			var ok bool
			if ok, w.scratch = matchComment(raw, w.scratch); ok {
				w.remove(w.off-base, len(raw))
				return true
			}
		}
		w.token(tt, raw, l)
	}
}

// remove drops the n-byte comment at stream offset s, and a "\n" after it,
// and sets up the stream after it.
func (w *walker) remove(s, n int) {
	p := len(w.prefix) // s+n > p: the comment is longer than the prefix
	w.out = append(w.out, w.prefix[:min(s, p)]...)
	if s > p {
		w.out = append(w.out, w.rest[:s-p]...)
	}
	r := s + n - p
	if r < len(w.rest) && w.rest[r] == '\n' {
		r++
	}
	w.rest, w.prefix, w.removed = w.rest[r:], nil, true
	w.count++
	if k := len(w.out) - 1; k >= 0 && w.out[k] == '<' {
		w.out, w.prefix = w.out[:k], []byte("<")
	}
}

// token processes one token other than a Lazarus comment.
func (w *walker) token(tt html.TokenType, raw []byte, l *layout) {
	start := w.off
	w.off += len(raw)
	rawText := w.rawPending && tt == html.TextToken
	if !w.prevRawish {
		w.lastSafe = start
	}
	w.rawPending = false
	switch tt {
	case html.StartTagToken, html.SelfClosingTagToken:
		w.startTag(raw, tt == html.SelfClosingTagToken)
	case html.EndTagToken:
		w.endTag(start, raw, l)
	}
	w.prevRawish = rawText || w.rawPending
	w.lastClean = !rawText && cleanEnd(tt, raw)
}

// safeEnd returns the insertion point used when the page has no end tag to
// insert before: the end of the page if it ends at a safe boundary, else the
// start of its unfinished last construct.
func (w *walker) safeEnd(size int) int {
	switch {
	case w.prevRawish:
		return w.lastSafe
	case w.off < size:
		return w.off // an unfinished tag, dropped by the tokenizer
	case w.lastClean:
		return w.off
	}
	return w.lastSafe
}

// cleanEnd reports whether a token is complete in itself, so that inserting
// a comment right after it does not change it.
func cleanEnd(tt html.TokenType, raw []byte) bool {
	switch tt {
	case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
		return true
	case html.TextToken:
		if bytes.HasPrefix(raw, []byte("<![CDATA[")) {
			return len(raw) >= len("<![CDATA[]]>") && bytes.HasSuffix(raw, []byte("]]>"))
		}
		return !bytes.HasSuffix(raw, []byte("</"))
	case html.CommentToken:
		if bytes.HasPrefix(raw, []byte(opener)) {
			return closedComment(raw)
		}
	}
	return bytes.HasSuffix(raw, []byte(">"))
}

// closedComment reports whether a "<!--" comment token has its end.
func closedComment(raw []byte) bool {
	switch {
	case string(raw) == "<!-->" || string(raw) == "<!--->":
		return true
	case len(raw) >= len("<!---->") && bytes.HasSuffix(raw, []byte("-->")):
		return true
	}
	return len(raw) >= len("<!----!>") && bytes.HasSuffix(raw, []byte("--!>"))
}
