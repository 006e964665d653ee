package keys

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// FormatVersion is the key file format version this program writes and
// the newest it reads.
const FormatVersion = 1

// MaxKeyFileSize bounds the size of a key file accepted by the parsers.
const MaxKeyFileSize = 64 << 10

// ErrUnknownVersion is returned for a key file written in a newer format.
var ErrUnknownVersion = errors.New("key file format version is newer than this program understands")

// versionError reports a key file format version newer than FormatVersion.
type versionError struct {
	kind *fileKind
	got  int
}

func (e *versionError) Error() string {
	return fmt.Sprintf("%s: key file format version %d is newer than this program understands (%d)",
		e.kind.name, e.got, FormatVersion)
}

func (e *versionError) Is(target error) bool { return target == ErrUnknownVersion }

// fileKind describes one type of key file.
type fileKind struct {
	name     string          // for messages, e.g. "owner key file (owner.key)"
	header   string          // first field, whose value is the format version
	required []string        // fields that must appear once
	optional map[string]bool // fields that may appear once
	wrongMsg string          // why the other kind of file does not fit here
}

// Field names of the key file format.
const (
	fieldOwnerHeader  = "lazarus-owner-key"
	fieldServerHeader = "lazarus-server-key"
	fieldCreated      = "created"
	fieldIdentity     = "age-identity"
	fieldRecipient    = "age-recipient"
	fieldSeed         = "signing-seed"
)

var (
	ownerKind = &fileKind{
		name:     "owner key file (" + OwnerFileName + ")",
		header:   fieldOwnerHeader,
		required: []string{fieldIdentity, fieldSeed},
		optional: map[string]bool{fieldCreated: true},
		wrongMsg: "this is a server key file (" + ServerFileName + "), which cannot decrypt; recovery needs the owner key file (" + OwnerFileName + ")",
	}
	serverKind = &fileKind{
		name:     "server key file (" + ServerFileName + ")",
		header:   fieldServerHeader,
		required: []string{fieldRecipient, fieldSeed},
		optional: map[string]bool{fieldCreated: true},
		wrongMsg: "this is an owner key file (" + OwnerFileName + "), which must stay offline; the server needs the server key file (" + ServerFileName + ")",
	}
)

// parseKeyFile splits data into fields, checking the header, version and
// field set of kind. It never echoes values, which may be secret.
func parseKeyFile(data []byte, kind *fileKind) (map[string]string, error) {
	if len(data) > MaxKeyFileSize {
		return nil, fmt.Errorf("%s: file is larger than %d bytes", kind.name, MaxKeyFileSize)
	}
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%s: file is not valid UTF-8", kind.name)
	}
	fields := make(map[string]string)
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.Trim(line, " \t\r")
		if line == "" || line[0] == '#' {
			continue
		}
		if err := addField(fields, kind, n+1, line); err != nil {
			return nil, err
		}
	}
	if len(fields) == 0 {
		return nil, fmt.Errorf("%s: no fields found (empty file?)", kind.name)
	}
	for _, k := range kind.required {
		if _, ok := fields[k]; !ok {
			return nil, fmt.Errorf("%s: missing field %q", kind.name, k)
		}
	}
	return fields, nil
}

// addField parses one "key: value" line into fields. The first field must
// be kind's header with a supported version.
func addField(fields map[string]string, kind *fileKind, n int, line string) error {
	key, value, ok := strings.Cut(line, ":")
	if !ok {
		return fmt.Errorf("%s: line %d: expected \"name: value\"", kind.name, n)
	}
	key, value = strings.TrimRight(key, " \t"), strings.Trim(value, " \t")
	if !validFieldName(key) {
		return fmt.Errorf("%s: line %d: malformed field name", kind.name, n)
	}
	if _, dup := fields[key]; dup {
		return fmt.Errorf("%s: line %d: duplicate field %q", kind.name, n, key)
	}
	if len(fields) == 0 {
		if err := checkHeader(kind, n, key, value); err != nil {
			return err
		}
	} else if !kind.allows(key) {
		return fmt.Errorf("%s: line %d: unknown field %q", kind.name, n, key)
	}
	if value == "" {
		return fmt.Errorf("%s: line %d: field %q is empty", kind.name, n, key)
	}
	fields[key] = value
	return nil
}

// checkHeader validates the first field of a key file.
func checkHeader(kind *fileKind, n int, key, value string) error {
	switch {
	case key == fieldOwnerHeader && kind != ownerKind, key == fieldServerHeader && kind != serverKind:
		return fmt.Errorf("%s expected: %s", kind.name, kind.wrongMsg)
	case key != kind.header:
		return fmt.Errorf("%s: line %d: first field is %q, expected %q (not a Lazarus key file?)",
			kind.name, n, key, kind.header)
	}
	v, err := parseVersion(value)
	if err != nil {
		return fmt.Errorf("%s: line %d: %w", kind.name, n, err)
	}
	if v > FormatVersion {
		return &versionError{kind: kind, got: v}
	}
	return nil
}

// parseVersion parses a positive decimal version without leading zeros.
func parseVersion(s string) (int, error) {
	if len(s) == 0 || len(s) > 9 || s[0] == '0' || strings.Trim(s, "0123456789") != "" {
		return 0, errors.New("malformed format version")
	}
	return strconv.Atoi(s)
}

func (k *fileKind) allows(key string) bool {
	for _, r := range k.required {
		if r == key {
			return true
		}
	}
	return k.optional[key]
}

// validFieldName reports whether s is 1..40 of [a-z0-9-].
func validFieldName(s string) bool {
	if len(s) == 0 || len(s) > 40 {
		return false
	}
	for _, c := range []byte(s) {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

// parseSeed decodes the signing-seed field: standard padded base64 of 32
// bytes.
func parseSeed(kind *fileKind, s string) ([]byte, error) {
	seed, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%s: field %q is not valid base64", kind.name, fieldSeed)
	}
	if len(seed) != SeedSize {
		return nil, fmt.Errorf("%s: field %q is %d bytes, want %d", kind.name, fieldSeed, len(seed), SeedSize)
	}
	return seed, nil
}

// parseCreated decodes the optional created field (RFC 3339, UTC).
func parseCreated(kind *fileKind, fields map[string]string) (time.Time, error) {
	s, ok := fields[fieldCreated]
	if !ok {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: field %q is not an RFC 3339 time", kind.name, fieldCreated)
	}
	return t.UTC().Truncate(time.Second), nil
}

// keyFileWriter accumulates the text of a key file.
type keyFileWriter struct{ strings.Builder }

func (w *keyFileWriter) comment(lines ...string) {
	for _, l := range lines {
		w.WriteString(strings.TrimRight("# "+l, " ") + "\n")
	}
}

func (w *keyFileWriter) field(key, value string) {
	w.WriteString(key + ": " + value + "\n")
}

// header writes the version field and the optional creation time.
func (w *keyFileWriter) header(kind *fileKind, created time.Time) {
	w.field(kind.header, strconv.Itoa(FormatVersion))
	if !created.IsZero() {
		w.field(fieldCreated, created.UTC().Format(time.RFC3339))
	}
}
