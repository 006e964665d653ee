package archive

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// TimeMap is one parsed page of a Memento TimeMap (RFC 7089 §5).
type TimeMap struct {
	Original string    // URI-R, from rel="original"
	TimeGate string    // URI-G, from rel="timegate"
	Self     string    // this TimeMap's URI-T, from rel="self"
	Pages    []string  // other TimeMap pages (rel="timemap", not self), resolved
	Mementos []Capture // mementos with a valid, plausible datetime, in document order
	Dropped  int       // memento entries dropped for a missing or impossible datetime
	// Malformed counts links skipped for a syntax error (each up to the
	// next line starting with '<'); a page of such links and no good one
	// is an error.
	Malformed int
}

// ParseTimeMap parses an application/link-format TimeMap. Relative URIs are
// resolved against base (the TimeMap's own URL; may be empty). Relation
// lists such as rel="first memento" are honoured. Entries whose datetime is
// missing, unparsable or implausible (before 1991 or in the future) are
// dropped and counted. Each memento becomes a Capture with Source
// "memento", URL the TimeMap's original (or, failing that, the one embedded
// in a Wayback-style URI-M) and Replay the raw form of its URI-M (see
// RawMementoURL).
func ParseTimeMap(data []byte, base string) (*TimeMap, error) {
	tm := &TimeMap{}
	err := scanTimeMap(string(data), base, tm, func(c Capture) error {
		tm.Mementos = append(tm.Mementos, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return tm, nil
}

// scanTimeMap parses a TimeMap page into tm (all but Mementos) and calls
// emit for each memento in document order, holding only those that come
// before the rel="original" link, so that every memento's URL is the
// TimeMap's original. It stops at emit's first error and returns it.
func scanTimeMap(doc, base string, tm *TimeMap, emit func(Capture) error) error {
	baseURL, err := url.Parse(base)
	if err != nil {
		return fmt.Errorf("archive: timemap base %q: %w", base, err)
	}
	var early []Capture // mementos before the original is known
	flush := func() error {
		for _, c := range early {
			if err := emit(tm.withOriginal(c)); err != nil {
				return err
			}
		}
		early = nil
		return nil
	}
	tm.Malformed, err = eachLink(doc, func(l link) error {
		l.uri = resolve(baseURL, l.uri)
		c, ok := tm.add(l)
		switch {
		case !ok:
			return nil
		case tm.Original == "":
			early = append(early, c)
			return nil
		}
		if err := flush(); err != nil {
			return err
		}
		return emit(tm.withOriginal(c))
	})
	if err != nil {
		return err
	}
	return flush()
}

// withOriginal sets a memento's URL to the TimeMap's original, if known.
func (tm *TimeMap) withOriginal(c Capture) Capture {
	if tm.Original != "" {
		c.URL = tm.Original
	}
	return c
}

// add files one link into the TimeMap and returns it as a memento, if it
// is one with a valid datetime.
func (tm *TimeMap) add(l link) (Capture, bool) {
	switch {
	case l.hasRel("original") && tm.Original == "":
		tm.Original = l.uri
	case l.hasRel("timegate") && tm.TimeGate == "":
		tm.TimeGate = l.uri
	case l.hasRel("self"):
		tm.Self = l.uri
	case l.hasRel("timemap"):
		tm.Pages = append(tm.Pages, l.uri)
	}
	if !l.hasRel("memento") {
		return Capture{}, false
	}
	return tm.memento(l)
}

// memento returns a memento link as a Capture, or counts it dropped.
func (tm *TimeMap) memento(l link) (Capture, bool) {
	t, err := http.ParseTime(strings.TrimSpace(l.params["datetime"]))
	if err != nil || !plausible(t, nowFunc()) {
		tm.Dropped++
		return Capture{}, false
	}
	raw, orig := RawMementoURL(l.uri)
	return Capture{
		Source: "memento",
		URL:    orig,
		Time:   t.UTC(),
		MIME:   l.params["type"],
		Replay: raw,
	}, true
}

// resolve resolves ref against base, returning ref unchanged if either
// does not parse.
func resolve(base *url.URL, ref string) string {
	r, err := url.Parse(ref)
	if err != nil || base == nil {
		return ref
	}
	return base.ResolveReference(r).String()
}

// waybackURIM matches a Wayback-style URI-M: a path segment of 4 to 14
// digits, optionally followed by a replay modifier such as "id_", "im_" or
// "if_", then "/" and the original URI.
var waybackURIM = regexp.MustCompile(`^(https?://[^/]+(?:/[^/]*)*?/)([0-9]{4,14})(?:[a-z]{2}_)?/((?:https?|ftp):/.*)$`)

// noIDReplay lists hosts whose URI-Ms look Wayback-style but which do not
// implement id_ raw replay (archive.today and its mirrors).
var noIDReplay = []string{"archive.today", "archive.ph", "archive.is", "archive.li", "archive.md", "archive.vn", "archive.fo"}

// RawMementoURL returns the URI-M rewritten to ask for the original bytes
// (the replay modifier replaced by id_) when it is a Wayback-style URI-M,
// plus the original URL embedded in it. Other URI-Ms are returned
// unchanged, with an empty original.
func RawMementoURL(urim string) (raw, original string) {
	m := waybackURIM.FindStringSubmatch(urim)
	if m == nil {
		return urim, ""
	}
	if u, err := url.Parse(urim); err == nil && isNoIDHost(u.Hostname()) {
		return urim, m[3]
	}
	return m[1] + m[2] + "id_/" + m[3], m[3]
}

// isNoIDHost reports whether host belongs to an archive without id_ replay.
func isNoIDHost(host string) bool {
	host = strings.ToLower(host)
	for _, h := range noIDReplay {
		if host == h || strings.HasSuffix(host, "."+h) {
			return true
		}
	}
	return false
}
