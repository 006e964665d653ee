package archive

import (
	"fmt"
	"net/url"
	"path"
	"strings"
)

// Dialect is the query language of a CDX server: how it reads filters,
// names fields, pages and limits answers.
type Dialect int

const (
	// DialectAuto speaks the dialect the endpoint's form suggests (see
	// ResolveCDX) and switches, once, when the first answer has the other
	// dialect's shape: no request is spent on probing unless the guess
	// was wrong.
	DialectAuto Dialect = iota
	// DialectWayback is the Internet Archive's wayback-cdx-server (and
	// OpenWayback's): filters "[!]field:regex" match whole fields, field
	// names original, mimetype, statuscode, output=json is an array of
	// arrays, answers are paged with resume keys.
	DialectWayback
	// DialectPywb is pywb's CDX server API (UK Web Archive, national
	// libraries, Common Crawl's index): filters "[!][=|~]field:expr"
	// (a bare expression is a substring, ~ a regular expression matched
	// at the beginning), field names url, mime, status, output=json is
	// NDJSON, no resume keys, and limit= cuts an answer silently (at
	// 100,000 rows when not sent).
	DialectPywb
)

// String implements fmt.Stringer.
func (d Dialect) String() string {
	switch d {
	case DialectAuto:
		return "auto"
	case DialectWayback:
		return "wayback"
	case DialectPywb:
		return "pywb"
	}
	return fmt.Sprintf("Dialect(%d)", int(d))
}

// CDXServer is where a CDX listing asks and where its captures replay.
type CDXServer struct {
	// API is the CDX API's URL, e.g.
	// https://web.archive.org/cdx/search/cdx or https://host/coll/cdx.
	API string
	// Replay is the raw-replay prefix: Replay + timestamp + "id_/" +
	// original returns a capture's original bytes, e.g.
	// https://web.archive.org/web/ or https://host/coll/.
	Replay string
	// Dialect is the dialect the API's form suggests: DialectWayback or
	// DialectPywb.
	Dialect Dialect
}

// waybackAPIPath is the path of the Wayback CDX API under its base.
const waybackAPIPath = "/cdx/search/cdx"

// ResolveCDX interprets base, a Wayback base URL or the URL of a CDX
// endpoint, and returns the server it names:
//
//   - …/cdx/search/cdx is the Wayback CDX API; its captures replay under
//     …/web/ (DialectWayback);
//   - a last path segment "cdx", or one ending in "-cdx" or "-index", is
//     a pywb collection's endpoint (/{coll}/cdx, /{coll}-cdx,
//     /{coll}-index); its captures replay under /{coll}/ (DialectPywb);
//   - any other URL is a Wayback base: the API at base/cdx/search/cdx,
//     replay under base/web/ (DialectWayback).
//
// replay, when not empty, is the replay prefix instead of the derived
// one. Both must be http or https URLs with a host and no fragment; a
// trailing "/" is ignored. An endpoint may carry a query, which every
// request keeps; a base may not.
func ResolveCDX(base, replay string) (CDXServer, error) {
	u, err := webURL(base)
	if err != nil {
		return CDXServer{}, fmt.Errorf("archive: cdx base %q: %w", base, err)
	}
	srv, ok := endpointOf(u)
	if !ok && u.RawQuery != "" {
		return CDXServer{}, fmt.Errorf("archive: cdx base %q: a base URL has no query (an endpoint ends in /cdx, -cdx or -index)", base)
	}
	if replay != "" {
		r, err := webURL(replay)
		if err != nil {
			return CDXServer{}, fmt.Errorf("archive: replay prefix %q: %w", replay, err)
		}
		srv.Replay = strings.TrimRight(r.String(), "/") + "/"
	}
	return srv, nil
}

// endpointOf tells the API, replay prefix and dialect of u, and whether
// u names an endpoint rather than a base.
func endpointOf(u *url.URL) (CDXServer, bool) {
	root := (&url.URL{Scheme: u.Scheme, User: u.User, Host: u.Host}).String()
	p := strings.TrimRight(u.EscapedPath(), "/")
	api := root + p
	if u.RawQuery != "" {
		api += "?" + u.RawQuery
	}
	if rest, ok := strings.CutSuffix(p, waybackAPIPath); ok {
		return CDXServer{API: api, Replay: root + rest + "/web/", Dialect: DialectWayback}, true
	}
	dir, last := path.Split(p)
	coll, ok := strings.CutSuffix(last, "-cdx")
	if !ok {
		coll, ok = strings.CutSuffix(last, "-index")
	}
	switch {
	case last == "cdx":
		return CDXServer{API: api, Replay: root + dir, Dialect: DialectPywb}, true
	case ok && coll != "":
		return CDXServer{API: api, Replay: root + dir + coll + "/", Dialect: DialectPywb}, true
	}
	return CDXServer{API: root + p + waybackAPIPath, Replay: root + p + "/web/", Dialect: DialectWayback}, false
}

// webURL parses s, which must be an absolute http or https URL with a
// host and no fragment.
func webURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if !isWeb(u) || u.Host == "" || u.Fragment != "" {
		return nil, fmt.Errorf("want an http or https URL with a host and no fragment")
	}
	return u, nil
}

// replayURL is the raw-replay URL of a capture under prefix.
func replayURL(prefix, timestamp, original string) string {
	return prefix + timestamp + "id_/" + original
}
