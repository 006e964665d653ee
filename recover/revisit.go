package recover

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/warc"
)

// Bounds of a revisit resolver: originals indexed, their pages held for
// revisits that follow, and revisits waiting for an original read later.
const (
	maxOriginals       = 200_000
	maxPendingRevisits = 100_000
)

// maxHeldBytes bounds the originals' pages a revisit resolver holds.
var maxHeldBytes int64 = 64 << 20

// revisits resolves a WARC source's revisit records to the payloads of
// their originals. Crawlers store a page fetched again with the same
// bytes (and "/index.html" equal to "/") as a revisit record: headers
// only, naming the original by record id (WARC-Refers-To), by URI and
// date (WARC-Refers-To-Target-URI, -Date), and by payload digest. A
// revisit is a capture of its own URL and date holding its original's
// page. Originals seen earlier are resolved at once from the pages held
// (the most recent, up to maxHeldBytes); the others once the source has
// been read, by reading their originals again.
type revisits struct {
	site      *url.URL // originals are indexed on this site only (all if nil)
	originals []original
	byID      map[string]int
	byURIDate map[string]int
	byDigest  map[string]int
	held      []int // originals whose page is held, oldest first
	heldBytes int64
	pending   []pendingRevisit
	dropped   int // revisits not kept pending (over maxPendingRevisits)
	full      bool
}

// original is an HTML 200 response record revisits may refer to.
type original struct {
	locator string
	page    []byte // held, or nil
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

// original indexes an HTML 200 response record and holds its page.
func (rv *revisits) original(rec *warc.Record, locator string, page []byte) {
	if rv.full || rv.site != nil && !onSite(rv.site, mustParse(rec.TargetURI)) {
		return
	}
	if len(rv.originals) >= maxOriginals {
		rv.full = true
		return
	}
	i := len(rv.originals)
	rv.originals = append(rv.originals, original{locator: locator, page: page})
	if id := rec.Header.Get("WARC-Record-ID"); id != "" {
		rv.byID[id] = i
	}
	rv.byURIDate[uriDate(rec.TargetURI, rec.Date)] = i
	if d := digestKey(rec.Header.Get("WARC-Payload-Digest")); d != "" {
		if _, ok := rv.byDigest[d]; !ok {
			rv.byDigest[d] = i
		}
	}
	rv.held = append(rv.held, i)
	for rv.heldBytes += int64(len(page)); rv.heldBytes > maxHeldBytes; rv.held = rv.held[1:] {
		old := rv.held[0]
		rv.heldBytes -= int64(len(rv.originals[old].page))
		rv.originals[old].page = nil
	}
}

func mustParse(raw string) *url.URL {
	u, err := url.Parse(raw)
	if err != nil {
		return &url.URL{}
	}
	return u
}

// revisit takes a revisit record: it returns its capture and page when
// its original's page is held; otherwise it keeps it pending and returns
// ok false. A revisit whose stored headers say it is not an HTML page
// (an image fetched twice) is ignored.
func (rv *revisits) revisit(rec *warc.Record, c Capture) (Capture, []byte, bool) {
	if !htmlRevisit(rec) {
		return c, nil, false
	}
	ref := revisitRef{id: rec.Header.Get("WARC-Refers-To"), uri: rec.Header.Get("WARC-Refers-To-Target-URI"),
		digest: digestKey(rec.Header.Get("WARC-Payload-Digest"))}
	ref.uri = strings.Trim(ref.uri, "<>")
	ref.date, _ = time.Parse(time.RFC3339Nano, rec.Header.Get("WARC-Refers-To-Date"))
	if i, ok := rv.find(ref); ok && rv.originals[i].page != nil {
		return c, rv.originals[i].page, true
	}
	if len(rv.pending) >= maxPendingRevisits {
		rv.dropped++
		return c, nil, false
	}
	rv.pending = append(rv.pending, pendingRevisit{c: c, ref: ref})
	return c, nil, false
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

// errOriginalGone is why a revisit's original, indexed on the first
// read, is not an HTML page on the second (the file changed meanwhile).
var errOriginalGone = errors.New("its original changed while the source was read")

// droppedErr says how many revisits were not resolved for lack of room.
func (rv *revisits) droppedErr() error {
	if rv.dropped == 0 {
		return nil
	}
	return fmt.Errorf("%d revisit records not resolved: more than %d waited for originals further on", rv.dropped, maxPendingRevisits)
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

// settle delivers the pending revisits whose original's page is held,
// and those with no original (Unreadable set); it returns the others by
// the locator of their original, to be read again.
func (rv *revisits) settle(deliver func(Capture, []byte) error) (map[string][]Capture, error) {
	waiting := map[string][]Capture{}
	for _, p := range rv.pending {
		i, ok := rv.find(p.ref)
		switch {
		case !ok:
			p.c.Unreadable = rv.unresolved(p)
		case rv.originals[i].page == nil:
			loc := rv.originals[i].locator
			waiting[loc] = append(waiting[loc], p.c)
			continue
		}
		var page []byte
		if ok {
			page = rv.originals[i].page
		}
		if err := deliver(p.c, page); err != nil {
			return nil, err
		}
	}
	rv.pending = nil
	return waiting, nil
}
