package htmlblock

import (
	"bytes"
	"encoding/base64"
)

// Byte classes of the comment grammar.
const (
	classOther  = iota // ends a body
	classBase64        // A-Z a-z 0-9 + / =
	classSpace         // SP HTAB LF FF CR
)

var class = func() (t [256]uint8) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") {
		t[c] = classBase64
	}
	for _, c := range []byte(" \t\n\f\r") {
		t[c] = classSpace
	}
	return t
}()

const (
	opener = "<!--"
	closer = "-->"
	magic  = "lazarus"
)

// strict is the body encoding: standard alphabet, padded, no stray bits.
var strict = base64.StdEncoding.Strict()

// header is the parsed "lazarus kind version" part of a comment.
type header struct {
	kind    Kind   // the kind token
	version int    // the version number, saturated at maxVersion
	verText []byte // the version token as written
	body    int    // offset of the first byte after the header
}

// headerStatus is the outcome of parseHeader.
type headerStatus int

const (
	headerNone      headerStatus = iota // not a Lazarus comment
	headerTruncated                     // the page ends inside a possible header
	headerOK
)

const maxVersion = 1 << 30

func isSpace(c byte) bool { return class[c] == classSpace }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isLower(c byte) bool { return 'a' <= c && c <= 'z' }

func skipSpace(p []byte, i int) int {
	for i < len(p) && isSpace(p[i]) {
		i++
	}
	return i
}

// parseHeader parses `*WSP "lazarus" 1*WSP kind 1*WSP version` starting at
// p[i], just after "<!--". The version token ends at whitespace or "-->"; if
// it runs straight into a base64 character instead (a transformation deleted
// the newline), the first digit alone is the version and the body starts
// right after it. On headerNone, the returned offset is where matching failed
// and no comment opener starts between i and it; on headerTruncated, the
// header is cut off by the end of p and h holds the tokens completed so far.
func parseHeader(p []byte, i int) (h header, next int, st headerStatus) {
	i = skipSpace(p, i)
	for k := 0; k < len(magic); k++ {
		if i+k == len(p) {
			return h, len(p), headerTruncated
		}
		if p[i+k] != magic[k] {
			return h, i + k, headerNone
		}
	}
	i, st = needSpace(p, i+len(magic))
	if st != headerOK {
		return h, i, st
	}
	j := i
	for j < len(p) && isLower(p[j]) && j-i <= MaxKindLen {
		j++
	}
	if j-i > MaxKindLen || j == i {
		return h, j, headerNone
	}
	if j == len(p) {
		return h, j, headerTruncated
	}
	h.kind = Kind(p[i:j])
	i, st = needSpace(p, j)
	if st != headerOK {
		return h, i, st
	}
	return parseVersion(p, i, h)
}

// needSpace skips the whitespace at p[i], of which there must be some.
func needSpace(p []byte, i int) (int, headerStatus) {
	j := skipSpace(p, i)
	switch {
	case j == len(p):
		return j, headerTruncated
	case j == i:
		return j, headerNone
	}
	return j, headerOK
}

// parseVersion parses the version token at p[i] and the byte after it.
func parseVersion(p []byte, i int, h header) (header, int, headerStatus) {
	d := i
	for d < len(p) && isDigit(p[d]) {
		d++
	}
	switch {
	case d == i:
		return h, d, headerNone
	case d == len(p) || isCloserPrefix(p[d:]):
		return h, len(p), headerTruncated
	case isSpace(p[d]) || bytes.HasPrefix(p[d:], []byte(closer)):
		h.verText, h.body = p[i:d], d
	case class[p[d]] == classBase64:
		h.verText, h.body = p[i:i+1], i+1
	default:
		return h, d, headerNone
	}
	for _, c := range h.verText {
		h.version = min(h.version*10+int(c-'0'), maxVersion)
	}
	return h, h.body, headerOK
}

// isCloserPrefix reports whether rest is a proper prefix of "-->", that is,
// whether the page may have been cut inside the closing delimiter.
func isCloserPrefix(rest []byte) bool {
	return len(rest) < len(closer) && bytes.HasPrefix([]byte(closer), rest)
}

// scanBody reads body bytes from p[i]: base64 characters, which it appends
// to dst as long as the body has at most limit of them, and whitespace. It
// returns at the first other byte (or len(p)), along with the count of base64
// characters seen.
func scanBody(p []byte, i int, dst []byte, limit int) (_ []byte, stop, n int) {
	for i < len(p) {
		j := i
		for j < len(p) && class[p[j]] == classBase64 {
			j++
		}
		if n += j - i; n <= limit {
			dst = append(dst, p[i:j]...)
		}
		for i = j; i < len(p) && class[p[i]] == classSpace; i++ {
		}
		if i == j && i < len(p) && class[p[i]] == classOther {
			break
		}
	}
	return dst, i, n
}

// matchComment reports whether c is exactly one Lazarus comment: a header of
// any kind and version, then a non-empty body of at most MaxBody characters
// that is valid padded base64 once whitespace is removed, then "-->". The
// scratch buffer is reused and returned.
func matchComment(c, scratch []byte) (bool, []byte) {
	if !bytes.HasPrefix(c, []byte(opener)) {
		return false, scratch
	}
	h, _, st := parseHeader(c, len(opener))
	if st != headerOK {
		return false, scratch
	}
	scratch, stop, n := scanBody(c, h.body, scratch[:0], MaxBody)
	if stop != len(c)-len(closer) || !bytes.HasSuffix(c, []byte(closer)) || n == 0 || n > MaxBody {
		return false, scratch
	}
	return validBase64(scratch), scratch
}

// validBase64 reports whether s, made of base64 characters and "=" only, is
// canonical padded standard base64: "=" only as padding of the last quantum,
// whose unused bits must be zero.
func validBase64(s []byte) bool {
	if len(s) == 0 || len(s)%4 != 0 {
		return false
	}
	if eq := bytes.IndexByte(s, '='); eq >= 0 && eq < len(s)-2 {
		return false
	}
	var buf [3]byte
	_, err := strict.Decode(buf[:], s[len(s)-4:])
	return err == nil
}
