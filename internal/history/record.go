package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// wireRecord is a Record as one JSON object (one line of a .jsonl value).
type wireRecord struct {
	V        int                 `json:"v"`
	Digest   string              `json:"digest"`
	SHA256   string              `json:"sha256,omitempty"`
	URL      string              `json:"url"`
	Time     time.Time           `json:"time"`
	Manifest string              `json:"manifest,omitempty"`
	Blocks   map[string][]string `json:"blocks,omitempty"`
	Depth    *int                `json:"depth,omitempty"`
}

// maxGenerations bounds the generations one record names.
const maxGenerations = 64

// MaxDepth is the deepest link depth a record may give.
const MaxDepth = 1 << 16

// Marshal returns rec as one line of JSON, without the newline. It
// refuses an invalid record (ErrInvalid) and one over MaxRecordBytes
// (ErrTooLarge).
func Marshal(rec *Record) ([]byte, error) {
	if err := rec.Validate(); err != nil {
		return nil, err
	}
	w := wireRecord{V: Version, Digest: rec.Digest, SHA256: rec.SHA256, URL: rec.URL, Time: rec.Time, Manifest: rec.Manifest, Blocks: rec.Blocks, Depth: rec.Depth}
	if len(w.Blocks) == 0 {
		w.Blocks = nil
	}
	v, err := json.Marshal(&w)
	if err != nil {
		return nil, err
	}
	if len(v) > MaxRecordBytes {
		return nil, fmt.Errorf("%w: page %s: %d bytes exceed %d", ErrTooLarge, rec.URL, len(v), MaxRecordBytes)
	}
	return v, nil
}

// Validate checks a record against the format: a base32 SHA-1 digest, a
// hex SHA-256 or none, a URL path, a time, generation ids and block
// references in their canonical forms.
func (rec *Record) Validate() error {
	switch {
	case !validDigest(rec.Digest):
		return fmt.Errorf("%w: digest %q is not a base32 SHA-1", ErrInvalid, rec.Digest)
	case rec.SHA256 != "" && !validSHA256(rec.SHA256):
		return fmt.Errorf("%w: SHA-256 %q is not 64 lower-case hex digits", ErrInvalid, rec.SHA256)
	case !validURL(rec.URL):
		return fmt.Errorf("%w: URL %q is not a path of at most %d bytes", ErrInvalid, rec.URL, MaxURLBytes)
	case rec.Time.IsZero():
		return fmt.Errorf("%w: page %s: no time", ErrInvalid, rec.URL)
	case rec.Manifest != "" && !validGeneration(rec.Manifest):
		return fmt.Errorf("%w: page %s: manifest %q is not a generation id", ErrInvalid, rec.URL, rec.Manifest)
	case len(rec.Blocks) > maxGenerations:
		return fmt.Errorf("%w: page %s: %d generations", ErrInvalid, rec.URL, len(rec.Blocks))
	case rec.Depth != nil && (*rec.Depth < 0 || *rec.Depth > MaxDepth):
		return fmt.Errorf("%w: page %s: depth %d is not in [0, %d]", ErrInvalid, rec.URL, *rec.Depth, MaxDepth)
	}
	for gen, refs := range rec.Blocks {
		if !validGeneration(gen) {
			return fmt.Errorf("%w: page %s: %q is not a generation id", ErrInvalid, rec.URL, gen)
		}
		for _, s := range refs {
			var ref manifest.BlockRef
			if err := ref.UnmarshalText([]byte(s)); err != nil || ref.String() != s {
				return fmt.Errorf("%w: page %s: block %q is not segment/stripe/shard", ErrInvalid, rec.URL, s)
			}
		}
	}
	return nil
}

// validURL reports whether u is a path as served: "/" first, no control
// characters, at most MaxURLBytes.
func validURL(u string) bool {
	if u == "" || u[0] != '/' || len(u) > MaxURLBytes {
		return false
	}
	for i := 0; i < len(u); i++ {
		if u[i] < 0x20 || u[i] == 0x7f {
			return false
		}
	}
	return true
}

// ParseRecords reads records, one JSON object per line (a .jsonl batch,
// or a .json value holding one). Blank lines are ignored; a line that is
// not a valid record of this Version, or passes MaxRecordBytes, is
// skipped and counted: a damaged file costs its damaged lines only.
func ParseRecords(data []byte) (recs []Record, skipped int) {
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		rec, ok := parseLine(line)
		if !ok {
			skipped++
			continue
		}
		recs = append(recs, rec)
	}
	return recs, skipped
}

// parseLine reads one record; ok is false for anything not a valid one.
func parseLine(line []byte) (Record, bool) {
	if len(line) > MaxRecordBytes {
		return Record{}, false
	}
	var w wireRecord
	if err := json.Unmarshal(line, &w); err != nil || w.V != Version {
		return Record{}, false
	}
	rec := Record{Digest: w.Digest, SHA256: w.SHA256, URL: w.URL, Time: w.Time, Manifest: w.Manifest, Blocks: w.Blocks, Depth: w.Depth}
	if len(rec.Blocks) == 0 {
		rec.Blocks = nil
	}
	if rec.Validate() != nil {
		return Record{}, false
	}
	return rec, true
}

// Earlier returns the record kept when one page version (one Digest) is
// recorded twice, by two instances or two runs: the earlier, with the
// other's SHA-256 when it has none (a record written before Lazarus kept
// SHA-256, and one written since).
func Earlier(a, b Record) Record {
	if cmpTime(b, a) < 0 {
		a, b = b, a
	}
	if a.SHA256 == "" && a.Digest == b.Digest {
		a.SHA256 = b.SHA256
	}
	return a
}
