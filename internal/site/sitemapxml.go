package site

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"net/url"
	"strings"
	"time"
)

// edit replaces data[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// sitemapWalker finds the edits of updateSitemap in one pass of
// encoding/xml's tokenizer, which checks well-formedness; byte offsets come
// from Decoder.InputOffset. Elements are matched by local name, whatever
// their namespace: <url> children of the root <urlset>, and their <loc> and
// <lastmod> children.
type sitemapWalker struct {
	data   []byte
	site   siteRoot
	stamps map[string]string
	stack  []string // local names of the open elements
	cur    *urlEntry
	ws     string // the last whitespace-only text, as written
	wsEnd  int    // where it ends
	edits  []edit
}

// urlEntry is what the sitemapWalker knows about the <url> element it is in.
type urlEntry struct {
	loc      strings.Builder
	inLoc    bool
	locDone  bool
	locEnd   int    // offset after </loc>
	locName  string // qualified name of loc, as written ("loc", "sm:loc")
	indent   string // whitespace before <loc>, from its last line break
	lastmod  *lastmod
	inLastmd bool
}

// lastmod is the first <lastmod> of an entry.
type lastmod struct {
	tagStart    int // offset of its start tag
	start, end  int // its content
	selfClosing bool
	name        string // qualified name, as written
	text        strings.Builder
}

// sitemapEdits returns the edits that update the sitemap body data.
func sitemapEdits(data []byte, s siteRoot, stamps map[string]string) ([]edit, error) {
	w := &sitemapWalker{data: data, site: s, stamps: stamps, wsEnd: -1}
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		start := int(d.InputOffset())
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return w.edits, nil
		}
		if err != nil {
			return nil, err
		}
		w.token(tok, start, int(d.InputOffset()))
	}
}

// token processes one token spanning data[start:end].
func (w *sitemapWalker) token(tok xml.Token, start, end int) {
	switch t := tok.(type) {
	case xml.StartElement:
		w.startElement(t.Name.Local, start, end)
		w.stack = append(w.stack, t.Name.Local)
	case xml.EndElement:
		w.stack = w.stack[:len(w.stack)-1]
		w.endElement(t.Name.Local, start, end)
	case xml.CharData:
		w.text(t, start, end)
	}
}

// startElement handles a start tag at depth len(w.stack).
func (w *sitemapWalker) startElement(name string, start, end int) {
	switch {
	case len(w.stack) == 1 && w.stack[0] == "urlset" && name == "url":
		w.cur = &urlEntry{}
	case w.cur == nil || len(w.stack) != 2:
	case name == "loc" && !w.cur.locDone && !w.cur.inLoc:
		w.cur.inLoc = true
		if w.wsEnd == start {
			w.cur.indent = lastLine(w.ws)
		}
	case name == "lastmod" && w.cur.lastmod == nil:
		w.cur.lastmod = &lastmod{tagStart: start, start: end, name: qualifiedName(w.data[start:end])}
		w.cur.inLastmd = true
	}
}

// endElement handles an end tag, or the end of an empty-element tag, which
// spans nothing, closing an element at depth len(w.stack).
func (w *sitemapWalker) endElement(name string, start, end int) {
	switch {
	case w.cur == nil:
	case len(w.stack) == 1 && name == "url":
		w.finish()
		w.cur = nil
	case len(w.stack) != 2:
	case name == "loc" && w.cur.inLoc:
		w.cur.inLoc, w.cur.locDone, w.cur.locEnd = false, true, end
		w.cur.locName = qualifiedName(w.data[start:end])
	case name == "lastmod" && w.cur.inLastmd:
		w.cur.inLastmd = false
		w.cur.lastmod.end, w.cur.lastmod.selfClosing = start, start == end
	}
}

// text handles character data.
func (w *sitemapWalker) text(t xml.CharData, start, end int) {
	raw := w.data[start:end]
	if len(bytes.TrimLeft(raw, " \t\r\n")) == 0 {
		w.ws, w.wsEnd = string(raw), end
	}
	if w.cur == nil || len(w.stack) != 3 {
		return
	}
	switch {
	case w.cur.inLoc:
		w.cur.loc.Write(t)
	case w.cur.inLastmd:
		w.cur.lastmod.text.Write(t)
	}
}

// finish adds the edit, if any, of the <url> element just closed.
func (w *sitemapWalker) finish() {
	e := w.cur
	if !e.locDone {
		return
	}
	u, err := url.Parse(strings.TrimSpace(e.loc.String()))
	if err != nil || !u.IsAbs() {
		return
	}
	t, ok := w.site.locate(u)
	if !ok || t.query != "" {
		return
	}
	stamp, ok := w.stamps[t.path]
	if !ok {
		return
	}
	switch lm := e.lastmod; {
	case lm == nil:
		name := strings.TrimSuffix(e.locName, "loc") + "lastmod"
		w.edits = append(w.edits, edit{e.locEnd, e.locEnd, e.indent + element(name, stamp)})
	case sameInstant(strings.TrimSpace(lm.text.String()), stamp):
	case lm.selfClosing:
		w.edits = append(w.edits, edit{lm.tagStart, lm.start, element(lm.name, stamp)})
	default:
		w.edits = append(w.edits, edit{lm.start, lm.end, stamp})
	}
}

// element returns "<name>text</name>".
func element(name, text string) string {
	return "<" + name + ">" + text + "</" + name + ">"
}

// qualifiedName returns the name of a start or end tag as written.
func qualifiedName(tag []byte) string {
	s := strings.TrimPrefix(strings.TrimPrefix(string(tag), "<"), "/")
	if i := strings.IndexAny(s, " \t\r\n/>"); i >= 0 {
		s = s[:i]
	}
	return s
}

// lastLine returns the whitespace ws from its last line break (with a CR
// before it) on, or all of ws if it has none.
func lastLine(ws string) string {
	i := strings.LastIndexByte(ws, '\n')
	if i < 0 {
		return ws
	}
	if i > 0 && ws[i-1] == '\r' {
		i--
	}
	return ws[i:]
}

// sameInstant reports whether the W3C datetime old is the instant stamp.
func sameInstant(old, stamp string) bool {
	want, err := time.Parse(lastmodLayout, stamp)
	if err != nil {
		return false
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00"} {
		if t, err := time.Parse(layout, old); err == nil {
			return t.Equal(want)
		}
	}
	return false
}
