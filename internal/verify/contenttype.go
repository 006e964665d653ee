package verify

import (
	"fmt"
	"mime"
	"net/url"
	"path"
	"strings"
)

// listedType judges a page's Content-Type the way recover's listing of
// archived captures does: only text/html and application/xhtml+xml pages
// are listed, so blocks on any other page do not count, whatever
// archives keep. It returns why such a page would not be listed ("" for
// an HTML page), whether the crawl should read it all the same to report
// the blocks it holds, and whether to follow its links (as crawlers that
// sniff a page without a type do).
//
// A page without a Content-Type, or with one that cannot be parsed, is
// read and followed; a text or XML type, or any type on a URL that names
// an HTML file (a server that gets the type wrong), is read but not
// followed; anything else (images, scripts) is neither.
func listedType(ct string, u *url.URL) (reason string, read, follow bool) {
	if strings.TrimSpace(ct) == "" {
		return "no Content-Type: archives list it as unknown; recover's listing skips it", true, true
	}
	mt, _, err := mime.ParseMediaType(ct)
	switch {
	case err != nil:
		return fmt.Sprintf("Content-Type %q cannot be parsed: recover's listing skips it", ct), true, true
	case mt == "text/html" || mt == "application/xhtml+xml":
		return "", true, true
	}
	reason = fmt.Sprintf("Content-Type %s: recover's listing only takes text/html and application/xhtml+xml", mt)
	textual := strings.HasPrefix(mt, "text/") || mt == "application/xml" || strings.HasSuffix(mt, "+xml")
	return reason, textual || htmlPath(u.Path), false
}

// htmlPath reports whether a URL path names an HTML file or a directory
// (whose index usually is one).
func htmlPath(p string) bool {
	return strings.HasSuffix(p, "/") || p == "" || isHTMLFile(path.Base(p))
}
