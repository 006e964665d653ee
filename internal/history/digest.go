package history

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"strings"
)

// Algorithm is the hash function of a digest.
type Algorithm uint8

// The algorithms archives list payload digests with.
const (
	// SHA1 is what the Internet Archive and most CDX servers list:
	// base32, as in `WARC-Payload-Digest: sha1:…`.
	SHA1 Algorithm = 1 + iota
	// SHA256 is what newer crawlers write (`sha256:…`, in base32 or hex).
	SHA256
)

// String is the algorithm's label in a WARC header: "sha1", "sha256".
func (a Algorithm) String() string {
	switch a {
	case SHA1:
		return "sha1"
	case SHA256:
		return "sha256"
	}
	return "unknown"
}

// size is the length of the algorithm's sums in bytes.
func (a Algorithm) size() int {
	if a == SHA1 {
		return sha1.Size
	}
	return sha256.Size
}

// Of returns the algorithm's digest of page's exact bytes.
func (a Algorithm) Of(page []byte) Digest {
	d := Digest{alg: a}
	switch a {
	case SHA1:
		s := sha1.Sum(page)
		copy(d.sum[:], s[:])
	case SHA256:
		d.sum = sha256.Sum256(page)
	default:
		return Digest{}
	}
	return d
}

// labels reports whether label names the algorithm, in any case: "sha1"
// or "sha-1", "sha256" or "sha-256".
func (a Algorithm) labels(label string) bool {
	label = strings.ToLower(label)
	return label == a.String() || label == strings.Replace(a.String(), "sha", "sha-", 1)
}

// Digest is a payload digest as an archive lists it, parsed: its
// algorithm and sum. Spellings of the same digest parse to equal values,
// so a Digest is the key to compare and look digests up by. The zero
// Digest is none (an unparseable or missing digest).
type Digest struct {
	alg Algorithm
	sum [sha256.Size]byte // the first alg.size() bytes
}

var (
	b32 = base32.StdEncoding.WithPadding(base32.NoPadding)
	// b32Lens are the lengths of the algorithms' base32 sums, unpadded.
	b32Lens = map[Algorithm]int{SHA1: b32.EncodedLen(sha1.Size), SHA256: b32.EncodedLen(sha256.Size)}
)

// ParseDigest parses a digest as archives spell it: a label ("sha1:",
// "sha-1:", "sha256:", "sha-256:", in any case) or none, then the sum in
// base32 (RFC 4648, any case, padded or not) or, for SHA-256, in hex (64
// digits, any case). Without a label the length tells the algorithm: 32
// base32 characters are a SHA-1, 52 base32 characters or 64 hex digits a
// SHA-256. ok is false for anything else (another algorithm, a hex SHA-1,
// a sum of the wrong length or with stray bits): such a digest is
// unknown.
func ParseDigest(s string) (d Digest, ok bool) {
	s = strings.TrimSpace(s)
	label, value, labelled := strings.Cut(s, ":")
	if !labelled {
		value = s
	}
	for _, a := range []Algorithm{SHA1, SHA256} {
		if labelled && !a.labels(label) {
			continue
		}
		if d, ok := decodeSum(a, value); ok {
			return d, true
		}
	}
	return Digest{}, false
}

// decodeSum decodes an algorithm's sum in base32 or (SHA-256) hex.
func decodeSum(a Algorithm, value string) (Digest, bool) {
	d := Digest{alg: a}
	sum := d.sum[:a.size()]
	if a == SHA256 && len(value) == hex.EncodedLen(len(sum)) {
		_, err := hex.Decode(sum, []byte(value))
		return d, err == nil
	}
	value = strings.ToUpper(strings.TrimRight(value, "="))
	if len(value) != b32Lens[a] {
		return Digest{}, false
	}
	n, err := b32.Decode(sum, []byte(value))
	if err != nil || n != len(sum) {
		return Digest{}, false
	}
	// Strict: the bits past the sum in the last character are zero, so
	// one sum has one base32 spelling (up to case and padding).
	if b32.EncodeToString(sum) != value {
		return Digest{}, false
	}
	return d, true
}

// Algorithm returns the digest's algorithm, 0 for the zero Digest.
func (d Digest) Algorithm() Algorithm { return d.alg }

// IsZero reports whether d is no digest.
func (d Digest) IsZero() bool { return d.alg == 0 }

// Matches reports whether d is the digest of page's exact bytes, computed
// with d's algorithm. The zero Digest matches nothing.
func (d Digest) Matches(page []byte) bool {
	return !d.IsZero() && d.alg.Of(page) == d
}

// String spells the digest with its label, as ParseDigest reads it back:
// "sha1:" and upper-case base32 (a CDX listing's SHA-1 form), or
// "sha256:" and lower-case hex; "" for the zero Digest.
func (d Digest) String() string {
	if d.IsZero() {
		return ""
	}
	return d.alg.String() + ":" + d.text()
}

// text is the sum as a Record keeps it: a SHA-1 in base32, upper case
// (Record.Digest), a SHA-256 in lower-case hex (Record.SHA256).
func (d Digest) text() string {
	sum := d.sum[:d.alg.size()]
	if d.alg == SHA1 {
		return b32.EncodeToString(sum)
	}
	return hex.EncodeToString(sum)
}

// Sums are a page version's digests in the forms a Record keeps them.
type Sums struct {
	// SHA1 is the base32 SHA-1, upper case, 32 characters: Record.Digest.
	SHA1 string
	// SHA256 is the lower-case hex SHA-256, 64 digits: Record.SHA256.
	SHA256 string
}

// SumsOf returns the digests of page's exact bytes, as archives list a
// capture of it with either algorithm.
func SumsOf(page []byte) Sums {
	return Sums{SHA1: SHA1.Of(page).text(), SHA256: SHA256.Of(page).text()}
}

// Digests returns the digests rec is known by: its SHA-1 and, in records
// that have it, its SHA-256.
func (rec *Record) Digests() []Digest {
	out := make([]Digest, 0, 2)
	if d, ok := decodeSum(SHA1, rec.Digest); ok {
		out = append(out, d)
	}
	if d, ok := decodeSum(SHA256, rec.SHA256); ok {
		out = append(out, d)
	}
	return out
}

// validSHA256 reports whether s is a Record.SHA256: 64 lower-case hex
// digits.
func validSHA256(s string) bool { return lowerHex(s, hex.EncodedLen(sha256.Size)) }
