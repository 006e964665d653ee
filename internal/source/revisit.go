package source

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/siteurl"
	"github.com/lazarus-preserve/lazarus/internal/warc"
)

// Bounds of a revisit resolver: originals indexed, the bytes revisits
// waiting for an original further on may hold, and the longest header
// value a record may have to take part (longer ones are ignored, as a
// CDX row's over-long fields are).
const (
	maxOriginals       = 200_000
	maxPendingBytes    = 16 << 20
	maxRevisitFieldLen = 8 << 10
)

// revisits resolves a WARC source's revisit records to their originals.
// Crawlers store a page fetched again with the same bytes (and
// "/index.html" equal to "/") as a revisit record: headers only, naming
// the original by record id (WARC-Refers-To), by URI and date
// (WARC-Refers-To-Target-URI, -Date), and by payload digest. A revisit is
// a capture of its own URL and date whose bytes are its original's: it is
// delivered after its original, with Capture.Original naming it, and no
// page of its own. One whose original comes later waits until the source
// has been read. Only records on the site (if known) take part, and the
// index keeps hashes of their references, not the references.
type revisits struct {
	site         *url.URL  // records on this site only (all if nil)
	files        []string  // the source's files, as originals name them
	originals    []origLoc // by index
	byRef        map[refKey]int
	pending      []pendingRevisit
	pendingBytes int
	dropped      int // revisits not kept pending (over maxPendingBytes)
	full         bool
}

// origLoc locates an original: its file and record number, which make
// its Locator.
type origLoc struct{ file, n int32 }

// refKey is a hash of one way of naming an original: a record id, a URI
// and date, or a payload digest.
type refKey [16]byte

func refOf(kind, a, b string) refKey {
	h := sha256.Sum256([]byte(kind + "\x00" + a + "\x00" + b))
	return refKey(h[:16])
}

// pendingRevisit waits for its original.
type pendingRevisit struct {
	c    Capture
	refs []refKey // in the order find tries them
	why  string   // what it refers to, for the report
}

func newRevisits(site *url.URL) *revisits {
	return &revisits{site: site, byRef: map[refKey]int{}}
}

// digestKey is a payload digest in one spelling.
func digestKey(d string) string { return strings.ToLower(strings.TrimSpace(d)) }

// fieldsFit reports whether a record's URI and the header values named
// are short enough to take part, and whether it is on the site.
func (rv *revisits) fieldsFit(rec *warc.Record, names ...string) bool {
	if len(rec.TargetURI) > maxRevisitFieldLen {
		return false
	}
	for _, n := range names {
		if len(rec.Header.Get(n)) > maxRevisitFieldLen {
			return false
		}
	}
	return rv.site == nil || siteurl.OnSite(rv.site, parsedOrEmpty(rec.TargetURI))
}

// original indexes an HTML 200 response record, the n-th of the source,
// in file.
func (rv *revisits) original(rec *warc.Record, file string, n int) {
	if rv.full || !rv.fieldsFit(rec, "WARC-Record-ID", "WARC-Payload-Digest") {
		return
	}
	if len(rv.originals) >= maxOriginals {
		rv.full = true
		return
	}
	if len(rv.files) == 0 || rv.files[len(rv.files)-1] != file {
		rv.files = append(rv.files, file)
	}
	i := len(rv.originals)
	rv.originals = append(rv.originals, origLoc{file: int32(len(rv.files) - 1), n: int32(n)})
	if id := rec.Header.Get("WARC-Record-ID"); id != "" {
		rv.byRef[refOf("id", id, "")] = i
	}
	rv.byRef[refOf("uri", rec.TargetURI, rec.Date.UTC().Format(time.RFC3339))] = i
	if d := digestKey(rec.Header.Get("WARC-Payload-Digest")); d != "" {
		if _, ok := rv.byRef[refOf("digest", d, "")]; !ok {
			rv.byRef[refOf("digest", d, "")] = i
		}
	}
}

// locator is the Locator of original i.
func (rv *revisits) locator(i int) string {
	o := rv.originals[i]
	return rv.files[o.file] + "#" + strconv.Itoa(int(o.n))
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
// pending (within maxPendingBytes) and returns ok false. A revisit whose
// stored headers say it is not an HTML page (an image fetched twice), or
// not on the site, is ignored.
func (rv *revisits) revisit(rec *warc.Record, c Capture) (Capture, bool) {
	names := []string{"WARC-Refers-To", "WARC-Refers-To-Target-URI", "WARC-Refers-To-Date", "WARC-Payload-Digest"}
	if !rv.fieldsFit(rec, names...) || !htmlRevisit(rec) {
		return c, false
	}
	id, uri := rec.Header.Get("WARC-Refers-To"), strings.Trim(rec.Header.Get("WARC-Refers-To-Target-URI"), "<>")
	date, _ := time.Parse(time.RFC3339Nano, rec.Header.Get("WARC-Refers-To-Date"))
	digest := digestKey(rec.Header.Get("WARC-Payload-Digest"))
	p := pendingRevisit{c: c, why: "an original"}
	if id != "" {
		p.refs = append(p.refs, refOf("id", id, ""))
	}
	if uri != "" && !date.IsZero() {
		p.refs = append(p.refs, refOf("uri", uri, date.UTC().Format(time.RFC3339)))
		p.why = fmt.Sprintf("a capture of %s of %s", uri, date.UTC().Format(time.RFC3339))
	}
	if digest != "" {
		p.refs = append(p.refs, refOf("digest", digest, ""))
		if p.why == "an original" {
			p.why = "a capture with payload digest " + digest
		}
	}
	if i, ok := rv.find(p.refs); ok {
		c.Original = rv.locator(i)
		return c, true
	}
	size := len(c.URL) + len(c.Digest) + len(c.Locator) + len(p.why) + 16*len(p.refs) + 128
	if rv.pendingBytes+size > maxPendingBytes {
		rv.dropped++
		return c, false
	}
	rv.pendingBytes += size
	// Copies: the record's values share one buffer with its whole header.
	p.c.URL, p.c.Digest = strings.Clone(c.URL), strings.Clone(c.Digest)
	rv.pending = append(rv.pending, p)
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
	return (status == http.StatusOK || status == http.StatusNotModified) && IsHTML(header.Get("Content-Type"))
}

// find returns the original a revisit refers to: by record id, else by
// URI and date, else by payload digest.
func (rv *revisits) find(refs []refKey) (int, bool) {
	for _, k := range refs {
		if i, ok := rv.byRef[k]; ok {
			return i, true
		}
	}
	return 0, false
}

// settle delivers the pending revisits once the source has been read:
// with Original set, or with Unreadable saying what they refer to that
// the source does not hold. It returns an error when revisits were left
// out for lack of room.
func (rv *revisits) settle(deliver func(Capture, []byte) error) error {
	for _, p := range rv.pending {
		if i, ok := rv.find(p.refs); ok {
			p.c.Original = rv.locator(i)
		} else {
			p.c.Unreadable = rv.unresolved(p)
		}
		if err := deliver(p.c, nil); err != nil {
			return err
		}
	}
	rv.pending = nil
	if rv.dropped > 0 {
		return fmt.Errorf("%d revisit records not resolved: more than %d MiB of them waited for originals further on", rv.dropped, maxPendingBytes>>20)
	}
	return nil
}

// unresolved says why a pending revisit has no original.
func (rv *revisits) unresolved(p pendingRevisit) error {
	why := "which the source does not hold"
	if rv.full {
		why = fmt.Sprintf("which the source may hold beyond the first %d pages indexed", maxOriginals)
	}
	return fmt.Errorf("revisit %s of %s refers to %s, %s", p.c.URL, p.c.Time.UTC().Format(time.RFC3339), p.why, why)
}
