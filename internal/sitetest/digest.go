package sitetest

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"strings"
)

// SHA256Spelling spells a payload's SHA-256 the i-th way (mod 5) archives
// of newer crawlers list it.
func SHA256Spelling(i int, body []byte) string {
	sum := sha256.Sum256(body)
	h, b := hex.EncodeToString(sum[:]), base32.StdEncoding.EncodeToString(sum[:])
	return []string{
		"sha256:" + h,                   // warcio.js, Browsertrix
		"sha256:" + b,                   // Heritrix, padded base32
		"SHA-256:" + strings.ToUpper(h), // another label
		h,                               // bare hex
		strings.TrimRight(b, "="),       // bare base32
	}[i%5]
}
