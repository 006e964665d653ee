package spn

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// Credentials are an Internet Archive S3-style key pair
// (https://archive.org/account/s3.php), which SPN2 accepts as
// "Authorization: LOW access:secret".
type Credentials struct {
	Access string
	Secret string
}

// ErrBadKeys means a key file does not hold an access key and a secret.
var ErrBadKeys = errors.New(`want "ACCESSKEY:SECRET" on one line, or the access key and the secret on two lines`)

// ParseCredentials reads a key file: "ACCESSKEY:SECRET" on one line, or
// the access key on the first line and the secret on the second.
// Surrounding blank space and one trailing newline are ignored; the keys
// themselves may not hold spaces, colons or control characters. Errors
// never quote the file (it holds the secret).
func ParseCredentials(data []byte) (Credentials, error) {
	text := strings.TrimSpace(string(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))))
	var c Credentials
	switch lines := strings.Split(text, "\n"); len(lines) {
	case 1:
		a, s, ok := strings.Cut(lines[0], ":")
		if !ok {
			return Credentials{}, fmt.Errorf("one line without ':': %w", ErrBadKeys)
		}
		c = Credentials{Access: strings.TrimSpace(a), Secret: strings.TrimSpace(s)}
	case 2:
		c = Credentials{Access: strings.TrimSpace(lines[0]), Secret: strings.TrimSpace(lines[1])}
	default:
		return Credentials{}, fmt.Errorf("%d lines: %w", len(lines), ErrBadKeys)
	}
	if !keyToken(c.Access) || !keyToken(c.Secret) {
		return Credentials{}, fmt.Errorf("an empty key or one with spaces, colons or control characters: %w", ErrBadKeys)
	}
	return c, nil
}

// keyToken reports whether s can be one half of the header's key pair.
func keyToken(s string) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r == ':' || r == 0x7f || r > '~' {
			return false
		}
	}
	return true
}

// header is the Authorization header value.
func (c Credentials) header() string { return "LOW " + c.Access + ":" + c.Secret }

// String names the access key and hides the secret.
func (c Credentials) String() string { return c.Access + ":<secret>" }

// GoString is String, so %#v does not print the secret either.
func (c Credentials) GoString() string { return "spn.Credentials{" + c.String() + "}" }
