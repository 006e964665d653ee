package site

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"
	"strings"
	"unicode/utf8"

	xhtml "golang.org/x/net/html"

	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
)

// NoticeAttr is the attribute that marks the element holding the visible
// notice maintained by SetNotice.
const NoticeAttr = "data-lazarus-notice"

// SetNotice maintains a visible "updated" line in a page, so that archives
// that ignore comment-only changes see the page change (seed 004 §4.2).
//
// The page must not carry Lazarus comments (htmlblock.Strip it first;
// htmlblock.Insert adds them back after the notice). The text content of
// the first element carrying the NoticeAttr attribute is replaced by text,
// HTML-escaped; child elements inside it are replaced too. Without such an
// element, `<p data-lazarus-notice="">text</p>` and "\n" are inserted (the
// empty value keeps XHTML pages well-formed) where htmlblock.Insert would
// put comments: before the last real </body>, else </html>, else at the
// end of the page. Elements inside <template> do not count. No other byte
// of the page changes, and if the element already holds exactly the
// escaped text, SetNotice returns page itself and changed == false.
//
// It fails if text is not valid UTF-8 or contains NUL, if the page carries
// Lazarus comments, or if the notice element cannot hold text: a void
// element (<br data-lazarus-notice>), an empty-element tag
// (<p data-lazarus-notice/>), or an element whose end tag is missing.
//
// SetNotice uses the x/net/html tokenizer without building a tree, so it
// does not know about SVG and MathML foreign content; it needs explicit end
// tags.
func SetNotice(page []byte, text string) (out []byte, changed bool, err error) {
	if !utf8.ValidString(text) || strings.IndexByte(text, 0) >= 0 {
		return nil, false, errors.New("notice text is not valid UTF-8 text")
	}
	esc := html.EscapeString(text)
	l, err := findNotice(page)
	if err != nil {
		return nil, false, err
	}
	if !l.found {
		if len(htmlblock.Strip(page)) != len(page) {
			return nil, false, errors.New("page carries Lazarus comments: strip them before setting the notice")
		}
		at := htmlblock.InsertionPoint(page)
		return splice(page, at, at, "<p "+NoticeAttr+`="">`+esc+"</p>\n"), true, nil
	}
	if string(page[l.start:l.end]) == esc {
		return page, false, nil
	}
	return splice(page, l.start, l.end, esc), true, nil
}

// splice returns a copy of page with page[start:end] replaced by s.
func splice(page []byte, start, end int, s string) []byte {
	out := make([]byte, 0, len(page)-(end-start)+len(s))
	out = append(out, page[:start]...)
	out = append(out, s...)
	return append(out, page[end:]...)
}

// noticeLayout is what findNotice learns about a page.
type noticeLayout struct {
	found      bool
	start, end int // content of the notice element, if found
}

// noticeScanner tokenizes a page for findNotice, tracking byte offsets.
type noticeScanner struct {
	z         *xhtml.Tokenizer
	off       int // offset of the end of the current token
	templates int // open <template> elements
	elem      string
	depth     int // open elements named elem inside the notice element
}

// findNotice finds the notice element of page, or where to insert one.
func findNotice(page []byte) (*noticeLayout, error) {
	s := &noticeScanner{z: xhtml.NewTokenizer(bytes.NewReader(page))}
	l := &noticeLayout{}
	for {
		tt := s.z.Next()
		if tt == xhtml.ErrorToken {
			if s.z.Err() != io.EOF {
				return nil, fmt.Errorf("tokenizing page: %w", s.z.Err())
			}
			break
		}
		done, err := s.token(tt, l)
		if done || err != nil {
			return l, err
		}
	}
	if s.elem != "" {
		return nil, fmt.Errorf("notice element <%s> has no end tag", s.elem)
	}
	return l, nil
}

// token processes one token and reports whether the notice element's
// content is complete.
func (s *noticeScanner) token(tt xhtml.TokenType, l *noticeLayout) (bool, error) {
	raw := s.z.Raw()
	start := s.off
	s.off += len(raw)
	var name []byte
	hasAttr := false
	if tt == xhtml.StartTagToken || tt == xhtml.SelfClosingTagToken || tt == xhtml.EndTagToken {
		name, hasAttr = s.z.TagName()
	}
	switch tt {
	case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
		return false, s.startTag(string(name), hasAttr, tt == xhtml.SelfClosingTagToken, l)
	case xhtml.EndTagToken:
		return s.endTag(string(name), start, l), nil
	}
	return false, nil
}

// startTag handles a start tag.
func (s *noticeScanner) startTag(name string, hasAttr, selfClosing bool, l *noticeLayout) error {
	switch {
	case s.elem != "":
		if name == s.elem && !selfClosing {
			s.depth++
		}
	case name == "template":
		s.templates += boolInt(!selfClosing)
	case s.templates == 0 && hasAttr && hasNoticeAttr(s.z):
		if selfClosing || isVoid(name) {
			return fmt.Errorf("notice element <%s> cannot hold text", name)
		}
		s.elem, s.depth = name, 1
		l.found, l.start = true, s.off
	}
	return nil
}

// endTag handles an end tag starting at offset start and reports whether
// it closes the notice element.
func (s *noticeScanner) endTag(name string, start int, l *noticeLayout) bool {
	switch {
	case s.elem != "":
		if name == s.elem {
			s.depth--
		}
		if s.depth == 0 {
			l.end = start
			return true
		}
	case name == "template":
		s.templates = max(0, s.templates-1)
	}
	return false
}

// hasNoticeAttr reports whether the current tag has NoticeAttr.
func hasNoticeAttr(z *xhtml.Tokenizer) bool {
	for more := true; more; {
		var k []byte
		k, _, more = z.TagAttr()
		if string(k) == NoticeAttr {
			return true
		}
	}
	return false
}

// isVoid reports whether an HTML element has no content.
func isVoid(name string) bool {
	switch name {
	case "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen",
		"link", "meta", "param", "source", "track", "wbr":
		return true
	}
	return false
}
