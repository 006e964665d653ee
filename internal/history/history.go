// Package history is the serve history of a site: for every page version
// Lazarus produced, the digests archives list it under (a CDX row's
// `digest`: the SHA-1, or the SHA-256 newer crawlers write, of the exact
// bytes; see Digest), its URL, when it was first
// produced, and which generations' manifest and blocks it carries; beside
// them, the signed manifest envelope of every generation those name. With
// it, `lazarus status` tells from an archive's listing alone which
// generation a capture holds, without fetching it.
//
// `lazarus inject` writes it into STATE/history/ (one batch of records per
// generation), the Caddy module into its storage under
// lazarus/NAME/history/ (one key per page version); Load reads both
// layouts. It is not part of the wire format: recovery never needs it.
// docs/FORMAT.md §14.1 describes the keys and the record.
package history

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"
)

// Version is the record format version; Load skips records of others.
const Version = 1

// Limits: Add refuses records over MaxRecordBytes (one JSON line), Load
// skips values over MaxValueBytes and stops (Index.Truncated) after
// MaxRecords records, MaxManifests manifests or MaxTotalBytes read.
const (
	MaxRecordBytes = 64 << 10
	MaxValueBytes  = 64 << 20
	MaxTotalBytes  = 1 << 30
	MaxRecords     = 1_000_000
	MaxManifests   = 100_000
	// MaxURLBytes bounds a record's URL.
	MaxURLBytes = 4096
)

// Errors callers branch on.
var (
	// ErrTooLarge means a record's JSON passes MaxRecordBytes.
	ErrTooLarge = errors.New("history record too large")
	// ErrInvalid means a record or manifest does not satisfy the format.
	ErrInvalid = errors.New("invalid history record")
)

// Record is one page version as served.
type Record struct {
	// Digest is the base32 SHA-1 of the exact page bytes served (identity
	// encoding), upper case, as a CDX listing's digest field shows it.
	// It names the record (RecordKey, Index.Records).
	Digest string
	// SHA256 is the lower-case hex SHA-256 of the same bytes, which
	// archives of newer crawlers list instead; "" in records written
	// before Lazarus kept it (they match SHA-1 listings only).
	SHA256 string
	// URL is the page's path as served, such as "/about/" (with "?query"
	// where the module lets query URLs carry blocks).
	URL string
	// Time is when this version was first produced.
	Time time.Time
	// Manifest is the generation id of the manifest the page carries, ""
	// if none.
	Manifest string
	// Blocks maps a generation id to the blocks of that generation on the
	// page, as "segment/stripe/shard", in page order: the current
	// generation's and, while it rides along, the previous one's. The
	// segment is the one of that name in that generation's manifest.
	Blocks map[string][]string
	// Depth is the page's link depth from the root page (0) when the
	// writer knew it (inject walks the site's links; the Caddy module
	// does not), nil otherwise. Status models pages it cannot reach by
	// the archived pages' links at this depth.
	Depth *int
}

// validDigest reports whether s is a Record.Digest: 32 characters of the
// upper-case base32 alphabet.
func validDigest(s string) bool {
	if len(s) != b32Lens[SHA1] {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

// validGeneration reports whether s is a generation id: 32 lower-case
// hex digits.
func validGeneration(s string) bool { return lowerHex(s, 32) }

// lowerHex reports whether s is n lower-case hex digits.
func lowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Keys, relative to the history's root.
const (
	recordsDir   = "records"
	manifestsDir = "manifests"
)

// ManifestKey is where generation gen's signed manifest envelope is kept.
func ManifestKey(gen string) string { return manifestsDir + "/" + gen }

// BatchKey is where AddBatch keeps the records of batch, one per line.
func BatchKey(batch string) string { return recordsDir + "/" + batch + ".jsonl" }

// PathDir is where Add keeps the records of the page at url, one key per
// version: records/ and the first 32 hex digits of SHA-256(url).
func PathDir(url string) string {
	h := sha256.Sum256([]byte(url))
	return recordsDir + "/" + hex.EncodeToString(h[:16])
}

// RecordKey is where Add keeps rec: PathDir(rec.URL)/DIGEST.json.
func RecordKey(rec *Record) string { return PathDir(rec.URL) + "/" + rec.Digest + ".json" }
