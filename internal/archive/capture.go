package archive

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Capture is one archived copy of one URL.
type Capture struct {
	Source string    // source name, e.g. "wayback", "cdx:https://host", "memento", "commoncrawl"
	URL    string    // the original URL
	Time   time.Time // capture time (UTC)
	Status int       // HTTP status, 0 if unknown
	MIME   string
	Digest string // payload digest as reported (IA: base32 SHA-1), may be empty
	Length int64  // record length if known
	// Replay is a URL that returns the original bytes (Wayback:
	// {base}/web/{timestamp}id_/{original}; Memento: the URI-M, with id_
	// inserted when it is a Wayback-style URI-M). Empty for Common Crawl.
	Replay string
	File   string // Common Crawl: WARC filename (relative to the data host)
	Offset int64  // Common Crawl: byte offset of the record in File
}

// Doer sends one HTTP request. *http.Client implements it; the caller's
// politeness layer (rate limits, back-off, User-Agent) usually wraps one.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// Sentinel errors callers branch on.
var (
	// ErrMalformed marks an archive answer that cannot be parsed.
	ErrMalformed = errors.New("archive: malformed answer")
	// ErrTooLarge marks an answer larger than the configured byte limit.
	ErrTooLarge = errors.New("archive: answer too large")
)

// timestampLayout is the 14-digit Wayback timestamp layout (UTC).
const timestampLayout = "20060102150405"

// timestampPad completes a shortened timestamp: missing month and day
// become 01, missing hours, minutes and seconds become 00.
const timestampPad = "00000101000000"

// ParseTimestamp parses a Wayback timestamp of 4 to 14 digits of even length
// (YYYY[MM[DD[hh[mm[ss]]]]]) as UTC. Missing parts take their lowest value.
func ParseTimestamp(ts string) (time.Time, error) {
	if len(ts) < 4 || len(ts) > 14 || len(ts)%2 != 0 {
		return time.Time{}, fmt.Errorf("%w: timestamp %q: want 4 to 14 digits of even length", ErrMalformed, ts)
	}
	for i := 0; i < len(ts); i++ {
		if ts[i] < '0' || ts[i] > '9' {
			return time.Time{}, fmt.Errorf("%w: timestamp %q: not all digits", ErrMalformed, ts)
		}
	}
	t, err := time.Parse(timestampLayout, ts+timestampPad[len(ts):])
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: timestamp %q: %v", ErrMalformed, ts, err)
	}
	return t.UTC(), nil
}

// FormatTimestamp formats t as a 14-digit Wayback timestamp in UTC.
func FormatTimestamp(t time.Time) string {
	return t.UTC().Format(timestampLayout)
}

// earliestCapture is the earliest plausible capture time: there was no web
// to archive before 1991.
var earliestCapture = time.Date(1991, 1, 1, 0, 0, 0, 0, time.UTC)

// plausible reports whether t can be a real capture time seen at now:
// not before 1991 and not more than a day in the future.
func plausible(t, now time.Time) bool {
	return !t.Before(earliestCapture) && !t.After(now.Add(24*time.Hour))
}
