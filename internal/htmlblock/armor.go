package htmlblock

import (
	"encoding/base64"
	"errors"
	"fmt"
)

// Kind names what a Lazarus comment carries. It is the second token of the
// comment header: one to MaxKindLen lower-case ASCII letters.
type Kind string

// The kinds defined by comment format version 1.
const (
	// KindBlock marks a comment carrying one erasure-coded data block.
	KindBlock Kind = "block"
	// KindManifest marks a comment carrying a manifest.
	KindManifest Kind = "manifest"
)

// Version is the comment format version this package writes and the only one
// its scanner decodes.
const Version = 1

// LineLen is the number of base64 characters per body line written by Armor.
const LineLen = 76

// MaxKindLen is the longest kind token the grammar admits. A longer run of
// letters after "lazarus" makes the comment a foreign one.
const MaxKindLen = 32

// MaxBody bounds the number of base64 characters (whitespace not counted) in
// one comment body: 64 MiB, which decodes to 48 MiB of payload. Armor refuses
// larger payloads and the scanner reports larger bodies as ErrTooLarge.
const MaxBody = 64 << 20

// maxPayload is the largest payload whose encoding fits in MaxBody.
const maxPayload = MaxBody / 4 * 3

// known reports whether k is a kind defined by format version 1.
func (k Kind) known() bool {
	return k == KindBlock || k == KindManifest
}

// validKind reports whether k is a syntactically valid kind token.
func validKind(k Kind) bool {
	if len(k) == 0 || len(k) > MaxKindLen {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 'a' || k[i] > 'z' {
			return false
		}
	}
	return true
}

// Armor returns payload wrapped in one Lazarus comment of the given kind:
//
//	"<!-- lazarus " kind " 1\n" base64 lines of LineLen characters, each
//	followed by "\n", then "-->"
//
// The result has no trailing newline. The kind must be a valid kind token
// (lower-case letters); it need not be one of the kinds defined here. Empty
// payloads are refused, and so are payloads whose encoding exceeds MaxBody
// (ErrTooLarge).
func Armor(kind Kind, payload []byte) ([]byte, error) {
	if !validKind(kind) {
		return nil, fmt.Errorf("invalid lazarus comment kind %q: want 1 to %d lower-case letters", kind, MaxKindLen)
	}
	if len(payload) == 0 {
		return nil, errors.New("cannot armor an empty payload")
	}
	if len(payload) > maxPayload {
		return nil, fmt.Errorf("payload of %d bytes: %w (limit %d bytes)", len(payload), ErrTooLarge, maxPayload)
	}
	head := "<!-- lazarus " + string(kind) + " 1\n"
	n := base64.StdEncoding.EncodedLen(len(payload))
	lines := (n + LineLen - 1) / LineLen
	out := make([]byte, len(head), len(head)+n+lines+len("-->"))
	copy(out, head)
	const chunk = LineLen / 4 * 3 // payload bytes per full line
	for len(payload) > 0 {
		m := min(chunk, len(payload))
		out = base64.StdEncoding.AppendEncode(out, payload[:m])
		out = append(out, '\n')
		payload = payload[m:]
	}
	return append(out, "-->"...), nil
}
