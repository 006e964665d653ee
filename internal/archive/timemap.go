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
	links, err := parseLinks(string(data))
	if err != nil {
		return nil, err
	}
	baseURL, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("archive: timemap base %q: %w", base, err)
	}
	tm := &TimeMap{}
	for _, l := range links {
		l.uri = resolve(baseURL, l.uri)
		tm.add(l)
	}
	if tm.Original != "" {
		for i := range tm.Mementos {
			tm.Mementos[i].URL = tm.Original
		}
	}
	return tm, nil
}

// add files one link into the TimeMap.
func (tm *TimeMap) add(l link) {
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
	if l.hasRel("memento") {
		tm.addMemento(l)
	}
}

// addMemento appends a memento link as a Capture, or counts it dropped.
func (tm *TimeMap) addMemento(l link) {
	t, err := http.ParseTime(strings.TrimSpace(l.params["datetime"]))
	if err != nil || !plausible(t, nowFunc()) {
		tm.Dropped++
		return
	}
	raw, orig := RawMementoURL(l.uri)
	tm.Mementos = append(tm.Mementos, Capture{
		Source: "memento",
		URL:    orig,
		Time:   t.UTC(),
		MIME:   l.params["type"],
		Replay: raw,
	})
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
