package recover

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/warc"
)

// Bounds of a revisit resolver: originals indexed, and revisits waiting
// for an original further on.
const (
	maxOriginals       = 200_000
	maxPendingRevisits = 100_000
)

// revisits resolves a WARC source's revisit records to their originals.
// Crawlers store a page fetched again with the same bytes (and
// "/index.html" equal to "/") as a revisit record: headers only, naming
// the original by record id (WARC-Refers-To), by URI and date
// (WARC-Refers-To-Target-URI, -Date), and by payload digest. A revisit is
// a capture of its own URL and date whose bytes are its original's: it is
// delivered after its original, with Capture.Original naming it, and no
// page of its own. One whose original comes later waits until the source
// has been read.
type revisits struct {
	site      *url.URL // originals are indexed on this site only (all if nil)
	originals []string // locators
	byID      map[string]int
	byURIDate map[string]int
	byDigest  map[string]int
	pending   []pendingRevisit
	dropped   int // revisits not kept pending (over maxPendingRevisits)
	full      bool
}

// pendingRevisit waits for its original.
type pendingRevisit struct {
	c   Capture
	ref revisitRef
}

// revisitRef is how a revisit names its original.
type revisitRef struct {
	id, uri, digest string
	date            time.Time
}

func newRevisits(site *url.URL) *revisits {
	return &revisits{site: site, byID: map[string]int{}, byURIDate: map[string]int{}, byDigest: map[string]int{}}
}

// uriDate keys an original by its URI and date.
func uriDate(uri string, t time.Time) string { return uri + "\x00" + t.UTC().Format(time.RFC3339) }

// digestKey is a payload digest in one spelling.
func digestKey(d string) string { return strings.ToLower(strings.TrimSpace(d)) }

// original indexes an HTML 200 response record, delivered at locator.
func (rv *revisits) original(rec *warc.Record, locator string) {
	if rv.full || rv.site != nil && !onSite(rv.site, parsedOrEmpty(rec.TargetURI)) {
		return
	}
	if len(rv.originals) >= maxOriginals {
		rv.full = true
		return
	}
	i := len(rv.originals)
	rv.originals = append(rv.originals, locator)
	if id := rec.Header.Get("WARC-Record-ID"); id != "" {
		rv.byID[id] = i
	}
	rv.byURIDate[uriDate(rec.TargetURI, rec.Date)] = i
	if d := digestKey(rec.Header.Get("WARC-Payload-Digest")); d != "" {
		if _, ok := rv.byDigest[d]; !ok {
			rv.byDigest[d] = i
		}
	}
}

func parsedOrEmpty(raw string) *url.URL {
	u, err := url.Parse(raw)
	if err != nil {
		return &url.URL{}
	}
	return u
}

// revisit takes a revisit record's capture: it returns it with Original
// set when its original was delivered already; otherwise it keeps it
// pending and returns ok false. A revisit whose stored headers say it is
// not an HTML page (an image fetched twice) is ignored.
func (rv *revisits) revisit(rec *warc.Record, c Capture) (Capture, bool) {
	if !htmlRevisit(rec) {
		return c, false
	}
	ref := revisitRef{id: rec.Header.Get("WARC-Refers-To"), uri: strings.Trim(rec.Header.Get("WARC-Refers-To-Target-URI"), "<>"),
		digest: digestKey(rec.Header.Get("WARC-Payload-Digest"))}
	ref.date, _ = time.Parse(time.RFC3339Nano, rec.Header.Get("WARC-Refers-To-Date"))
	if i, ok := rv.find(ref); ok {
		c.Original = rv.originals[i]
		return c, true
	}
	if len(rv.pending) >= maxPendingRevisits {
		rv.dropped++
		return c, false
	}
	rv.pending = append(rv.pending, pendingRevisit{c: c, ref: ref})
	return c, false
}

// htmlRevisit reports whether a revisit record may be of an HTML page:
// its stored HTTP headers (if any) say 200 or 304 and an HTML type (or
// none).
func htmlRevisit(rec *warc.Record) bool {
	status, header, _, err := rec.HTTPResponse()
	if err != nil && header == nil {
		return true // no headers stored: the original says
	}
	return (status == http.StatusOK || status == http.StatusNotModified) && isHTML(header.Get("Content-Type"))
}

// find returns the original a revisit refers to: by record id, else by
// URI and date, else by payload digest.
func (rv *revisits) find(ref revisitRef) (int, bool) {
	if i, ok := rv.byID[ref.id]; ok && ref.id != "" {
		return i, true
	}
	if i, ok := rv.byURIDate[uriDate(ref.uri, ref.date)]; ok && ref.uri != "" && !ref.date.IsZero() {
		return i, true
	}
	i, ok := rv.byDigest[ref.digest]
	return i, ok && ref.digest != ""
}

// settle delivers the pending revisits once the source has been read:
// with Original set, or with Unreadable saying what they refer to that
// the source does not hold. It returns an error when revisits were left
// out for lack of room.
func (rv *revisits) settle(deliver func(Capture, []byte) error) error {
	for _, p := range rv.pending {
		if i, ok := rv.find(p.ref); ok {
			p.c.Original = rv.originals[i]
		} else {
			p.c.Unreadable = rv.unresolved(p)
		}
		if err := deliver(p.c, nil); err != nil {
			return err
		}
	}
	rv.pending = nil
	if rv.dropped > 0 {
		return fmt.Errorf("%d revisit records not resolved: more than %d waited for originals further on", rv.dropped, maxPendingRevisits)
	}
	return nil
}

// unresolved says why a pending revisit has no original.
func (rv *revisits) unresolved(p pendingRevisit) error {
	what := "an original"
	switch {
	case p.ref.uri != "" && !p.ref.date.IsZero():
		what = fmt.Sprintf("a capture of %s of %s", p.ref.uri, p.ref.date.UTC().Format(time.RFC3339))
	case p.ref.digest != "":
		what = "a capture with payload digest " + p.ref.digest
	}
	why := "which the source does not hold"
	if rv.full {
		why = fmt.Sprintf("which the source may hold beyond the first %d pages indexed", maxOriginals)
	}
	return fmt.Errorf("revisit %s of %s refers to %s, %s", p.c.URL, p.c.Time.UTC().Format(time.RFC3339), what, why)
}
