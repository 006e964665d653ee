// Package htmlblock carries opaque binary payloads (blocks and manifests)
// inside HTML comments: it armors payloads as comments, inserts them into
// pages, strips them again, and scans pages for them.
//
// # Comment grammar, version 1
//
//	lazarus-comment = "<!--" *WSP "lazarus" 1*WSP kind 1*WSP version 1*WSP body *WSP "-->"
//	kind            = 1*32( %x61-7A )   ; lower-case letters: "block", "manifest"
//	version         = 1*DIGIT           ; this package understands "1"
//	body            = base64            ; RFC 4648 §4, standard alphabet, "=" padding
//	WSP             = SP / HTAB / LF / FF / CR
//
// Whitespace may occur anywhere inside the body and is ignored. The body
// must be non-empty canonical base64 (unused bits zero) of at most MaxBody
// characters. The base64 alphabet has neither "-" nor ">", so the first
// "-->" after the header ends the comment and a comment can never contain
// "--" or ">".
//
// Armor writes exactly
//
//	"<!-- lazarus " kind " 1\n" *( base64-line "\n" ) "-->"
//
// with lines of LineLen (76) characters, the last one possibly shorter.
//
// # Scanning
//
// The scanner (Scan, All) does not parse HTML. It finds every "<!--"
// followed by optional whitespace and "lazarus", in one linear pass over any
// bytes, and tolerates what archives and minifiers do to comments: CRLF line
// ends, whitespace collapsed or removed, bodies re-wrapped, foreign comments
// and invalid UTF-8 around. If the newline after the version was removed, so
// that base64 follows the version digits directly, the first digit alone is
// taken as the version. Damaged comments whose header matches are reported
// with an error rather than dropped, so recovery can count them as
// erasures.
//
// # Insertion
//
// Insert and Strip tokenize pages with golang.org/x/net/html, so they act
// only on real comment and end-tag tokens; see Insert for the insertion
// point.
package htmlblock
