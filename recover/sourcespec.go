package recover

import (
	"fmt"
	"strings"
)

// SourceKinds lists the kinds ParseSource accepts.
const SourceKinds = ArchiveSourceKinds + ", live"

// ArchiveSourceKinds lists the kinds ParseArchiveSource accepts: the
// archives, not the live site.
const ArchiveSourceKinds = "wayback, commoncrawl, cdx, memento, warc, dir"

// ParseSource makes a Source from its spelling on a command line or in a
// Caddyfile: "wayback[=BASE]" (default https://web.archive.org),
// "commoncrawl[=INDEX[,DATA]]", "cdx=BASE", "memento=TIMEMAP_BASE",
// "warc=FILE", "dir=MIRROR" or "live". Network sources use client.
func ParseSource(spec string, client Doer) (Source, error) {
	return parseSource(spec, client, SourceKinds)
}

// ParseArchiveSource is ParseSource for what audits archives (lazarus
// status, the Caddy module's audit): "live" is refused, and an unknown
// kind's error lists ArchiveSourceKinds only.
func ParseArchiveSource(spec string, client Doer) (Source, error) {
	if kind, _, _ := strings.Cut(spec, "="); kind == "live" {
		return nil, fmt.Errorf("source %q: the live site is not an archive (lazarus verify checks it); want one of %s", spec, ArchiveSourceKinds)
	}
	return parseSource(spec, client, ArchiveSourceKinds)
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
		return CDXSource{Base: strings.TrimSuffix(arg, "/"), Label: "wayback", Client: client}, need()
	case "cdx":
		return CDXSource{Base: strings.TrimSuffix(arg, "/"), Client: client}, need()
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
