package source

import (
	"fmt"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/archive"
)

// Kinds lists the kinds ParseSource accepts.
const Kinds = ArchiveKinds + ", live"

// ArchiveKinds lists the kinds ParseArchiveSource accepts: the
// archives, not the live site.
const ArchiveKinds = "wayback, commoncrawl, cdx, pywb, memento, warc, dir"

// Parse makes a Source from its spelling on a command line or in a
// Caddyfile: "wayback[=BASE]" (default https://web.archive.org),
// "commoncrawl[=INDEX[,DATA]]", "cdx=URL[,REPLAY]", "pywb=URL[,REPLAY]",
// "memento=TIMEMAP_BASE", "warc=FILE", "dir=MIRROR" or "live". Network
// sources use client.
//
// cdx= takes a Wayback base URL or a CDX endpoint (see CDXSource.Base)
// and finds the server's dialect (DialectAuto); pywb= takes a pywb
// collection's endpoint (…/{coll}/cdx, …/{coll}-cdx, …/{coll}-index) or
// the collection's URL (…/{coll}, whose endpoint is …/{coll}/cdx) and
// speaks pywb's dialect. REPLAY is the raw-replay prefix, where the
// endpoint's form does not imply it (…/{coll}/ for a pywb endpoint,
// BASE/web/ for the Wayback's).
func Parse(spec string, client Doer) (Source, error) {
	return parseSource(spec, client, Kinds)
}

// ParseArchive is ParseSource for what audits archives (lazarus
// status, the Caddy module's audit): "live" is refused, and an unknown
// kind's error lists ArchiveSourceKinds only.
func ParseArchive(spec string, client Doer) (Source, error) {
	if kind, _, _ := strings.Cut(spec, "="); kind == "live" {
		return nil, fmt.Errorf("source %q: the live site is not an archive; want one of %s", spec, ArchiveKinds)
	}
	return parseSource(spec, client, ArchiveKinds)
}

// parseSource parses spec; kinds is what an unknown kind's error lists.
func parseSource(spec string, client Doer, kinds string) (Source, error) {
	kind, arg, hasArg := strings.Cut(spec, "=")
	need := func() error {
		if arg == "" {
			return fmt.Errorf("source %q: %s= needs a value", spec, kind)
		}
		return nil
	}
	switch kind {
	case "wayback":
		if !hasArg {
			arg = "https://web.archive.org"
		}
		return CDXSource{Base: strings.TrimSuffix(arg, "/"), Label: "wayback", Dialect: DialectWayback, Client: client}, need()
	case "cdx", "pywb":
		if err := need(); err != nil {
			return nil, err
		}
		return cdxSpec(spec, kind, arg, client)
	case "memento":
		return MementoSource{TimeMapBase: arg, Client: client}, need()
	case "dir":
		return DirSource{Dir: arg}, need()
	case "warc":
		return WARCSource{Path: arg}, need()
	case "commoncrawl":
		index, data, _ := strings.Cut(arg, ",")
		return CommonCrawlSource{IndexBase: index, DataBase: data, Client: client}, nil
	case "live":
		return LiveSource{Client: client}, nil
	}
	return nil, fmt.Errorf("source %q: unknown kind %q (want one of %s)", spec, kind, kinds)
}

// cdxSpec makes the CDXSource of "cdx=URL[,REPLAY]" or
// "pywb=URL[,REPLAY]", checking both URLs.
func cdxSpec(spec, kind, arg string, client Doer) (Source, error) {
	base, replay, _ := strings.Cut(arg, ",")
	base = strings.TrimSuffix(base, "/")
	s := CDXSource{Base: base, Replay: replay, Client: client}
	srv, err := archive.ResolveCDX(base, replay)
	if err != nil {
		return nil, fmt.Errorf("source %q: %w", spec, err)
	}
	if kind == "pywb" {
		s.Dialect = DialectPywb
		if srv.Dialect != archive.DialectPywb {
			s.Base += "/cdx" // a collection's URL
		}
	}
	return s, nil
}
