package htmlblock

import (
	"bytes"
	"slices"
)

// isRawTextTag reports whether the x/net/html tokenizer reads raw text or
// RCDATA after this start tag, up to the matching end tag (or to the end of
// the page for plaintext), unless told otherwise.
func isRawTextTag(name []byte) bool {
	switch string(name) {
	case "iframe", "noembed", "noframes", "noscript", "plaintext", "script",
		"style", "textarea", "title", "xmp":
		return true
	}
	return false
}

// isBreakout reports whether a start tag ends foreign content (HTML
// §13.2.6.5).
func isBreakout(name []byte) bool {
	switch string(name) {
	case "b", "big", "blockquote", "body", "br", "center", "code", "dd", "div",
		"dl", "dt", "em", "embed", "h1", "h2", "h3", "h4", "h5", "h6", "head",
		"hr", "i", "img", "li", "listing", "menu", "meta", "nobr", "ol", "p",
		"pre", "ruby", "s", "small", "span", "strong", "strike", "sub", "sup",
		"table", "tt", "u", "ul", "var":
		return true
	}
	return false
}

// tagName returns the lower-cased name of a tag token, read from its raw
// bytes as the tokenizer reads it, in a buffer reused by the next call.
func (w *walker) tagName(raw []byte) []byte {
	i := len("<")
	if len(raw) > 1 && raw[1] == '/' {
		i = len("</")
	}
	j := i
	for j < len(raw) && !isSpace(raw[j]) && raw[j] != '/' && raw[j] != '>' {
		j++
	}
	w.name = append(w.name[:0], raw[i:j]...)
	for k, c := range w.name {
		if 'A' <= c && c <= 'Z' {
			w.name[k] = c + 'a' - 'A'
		}
	}
	return w.name
}

// inForeign reports whether the current node is an SVG or MathML element
// other than an integration point; CDATA sections are recognised only then.
func (w *walker) inForeign() bool {
	n := len(w.foreign)
	return n > 0 && !w.foreign[n-1].island
}

// foreignStart reports whether a start tag is parsed as foreign content.
func (w *walker) foreignStart(name []byte) bool {
	n := len(w.foreign)
	if n == 0 {
		return false
	}
	top := w.foreign[n-1]
	switch {
	case top.island:
		return top.ns == "math" && top.name != "annotation-xml" &&
			(string(name) == "mglyph" || string(name) == "malignmark")
	case top.name == "annotation-xml" && string(name) == "svg":
		return false
	}
	return true
}

// startTag updates the tree state for a start tag and tells the tokenizer
// not to read raw text after a start tag in foreign content.
func (w *walker) startTag(raw []byte, selfClosing bool) {
	name := w.tagName(raw)
	if !w.foreignStart(name) {
		w.htmlStart(name, selfClosing)
		return
	}
	if isBreakout(name) || string(name) == "font" && w.anyAttr(fontBreaks) {
		w.popToHTML()
		w.htmlStart(name, selfClosing)
		return
	}
	w.z.NextIsNotRawText()
	if !selfClosing {
		ns := w.foreign[len(w.foreign)-1].ns
		w.foreign = append(w.foreign, element{
			name:   string(name),
			ns:     ns,
			island: integrationPoint(ns, string(name)) || w.htmlAnnotation(name),
		})
	}
}

// htmlStart handles a start tag parsed as HTML, whose self-closing flag
// means nothing except on svg and math.
func (w *walker) htmlStart(name []byte, selfClosing bool) {
	switch string(name) {
	case "svg", "math":
		if !selfClosing {
			w.foreign = append(w.foreign, element{name: string(name), ns: string(name)})
		}
	case "template":
		w.templates = append(w.templates, len(w.foreign))
	default:
		w.rawPending = isRawTextTag(name)
	}
}

// endTag updates the tree state for an end tag and records "</body>" and
// "</html>" tags outside templates.
func (w *walker) endTag(start int, raw []byte, l *layout) {
	name := w.tagName(raw)
	for i := len(w.foreign) - 1; i >= 0; i-- {
		if w.foreign[i].name == string(name) {
			w.popForeign(i)
			return
		}
	}
	switch string(name) {
	case "template":
		if n := len(w.templates); n > 0 {
			w.popForeign(w.templates[n-1])
			w.templates = w.templates[:n-1]
		}
	case "body", "html":
		if len(w.templates) > 0 || w.prevRawish {
			return
		}
		if string(name) == "body" {
			l.lastBody = start
		} else {
			l.lastHTML = start
		}
	}
}

// popForeign closes the foreign elements from index i on, and the templates
// opened inside them.
func (w *walker) popForeign(i int) {
	w.foreign = w.foreign[:i]
	for n := len(w.templates); n > 0 && w.templates[n-1] > i; n-- {
		w.templates = w.templates[:n-1]
	}
}

// popToHTML closes foreign elements up to the nearest integration point.
func (w *walker) popToHTML() {
	i := len(w.foreign)
	for i > 0 && !w.foreign[i-1].island {
		i--
	}
	w.popForeign(i)
}

// integrationPoint reports whether an element's start tags are HTML.
func integrationPoint(ns, name string) bool {
	switch ns {
	case "svg":
		return name == "foreignobject" || name == "desc" || name == "title"
	case "math":
		return slices.Contains([]string{"mi", "mo", "mn", "ms", "mtext"}, name)
	}
	return false
}

// htmlAnnotation reports whether a start tag is a MathML annotation-xml
// with an HTML encoding, an HTML integration point.
func (w *walker) htmlAnnotation(name []byte) bool {
	if string(name) != "annotation-xml" || w.foreign[len(w.foreign)-1].ns != "math" {
		return false
	}
	return w.anyAttr(func(k, v []byte) bool {
		return string(k) == "encoding" &&
			(bytes.EqualFold(v, []byte("text/html")) || bytes.EqualFold(v, []byte("application/xhtml+xml")))
	})
}

// fontBreaks reports whether a font attribute makes <font> end foreign
// content.
func fontBreaks(k, _ []byte) bool {
	return string(k) == "color" || string(k) == "face" || string(k) == "size"
}

// anyAttr reports whether any attribute of the current tag satisfies f.
func (w *walker) anyAttr(f func(k, v []byte) bool) bool {
	for {
		k, v, more := w.z.TagAttr()
		if k != nil && f(k, v) {
			return true
		}
		if !more {
			return false
		}
	}
}
