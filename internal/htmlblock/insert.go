package htmlblock

import (
	"fmt"
)

// Insert returns a copy of page without its Lazarus comments (see Strip) and
// with the given comments inserted, each followed by "\n", at the insertion
// point:
//
//   - before the last "</body>" end tag (any case) that is a real tag token
//     of the document outside any <template> element;
//   - else before the last such "</html>" end tag;
//   - else at the end of the page, or, if the page ends inside an unfinished
//     construct (an unclosed script, style, textarea, title or other
//     raw-text element, an unterminated comment or CDATA section, a cut-off
//     tag), before that construct.
//
// Each comment must be exactly one comment matching the grammar, as Armor
// produces; anything else is an error. Inserting the same comments into the
// result again returns the same bytes, Strip of the result equals
// Strip(page), and inserting no comments is Strip.
func Insert(page []byte, comments ...[]byte) ([]byte, error) {
	var scratch []byte
	size := 0
	for i, c := range comments {
		var ok bool
		if ok, scratch = matchComment(c, scratch); !ok {
			return nil, fmt.Errorf("comment %d of %d is not a lazarus comment", i+1, len(comments))
		}
		size += len(c) + 1
	}
	page, l := strip(page)
	at := l.insertionPoint()
	out := make([]byte, 0, len(page)+size)
	out = append(out, page[:at]...)
	for _, c := range comments {
		out = append(out, c...)
		out = append(out, '\n')
	}
	return append(out, page[at:]...), nil
}

// InsertionPoint returns the offset in Strip(page) where Insert puts
// comments — for a page without Lazarus comments, an offset into page
// itself. Other markup that must sit at the end of the body (such as a
// visible notice line) goes there too, and is then kept in front of the
// comments by later insertions.
func InsertionPoint(page []byte) int {
	_, l := strip(page)
	return l.insertionPoint()
}

// Strip returns page without its Lazarus comments, each removed together
// with one "\n" right after it, if there is one: what Insert added. Only
// comment tokens of the document count, as the x/net/html tokenizer finds
// them; text that merely looks like a comment inside a script, style,
// textarea or title element, a CDATA section or another comment stays. A
// Lazarus comment is one matching the comment grammar: a header of any kind
// and version and a non-empty body of valid padded base64.
//
// Removing a comment can join the bytes around it into a new Lazarus
// comment; that is removed too, so Strip(Strip(p)) == Strip(p). All other
// bytes are kept as they are. Strip returns page itself if it has no
// Lazarus comment.
func Strip(page []byte) []byte {
	page, _ = strip(page)
	return page
}
