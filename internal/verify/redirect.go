package verify

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/fetch"
	"github.com/lazarus-preserve/lazarus/internal/siteurl"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// maxRedirects bounds the redirects followed from one link, as browsers
// and crawlers do.
const maxRedirects = 10

// redirectHeader carries a redirect's Location past the HTTP client of
// newVerifyClient, so that the crawl, not the client, follows it.
const redirectHeader = "X-Lazarus-Location"

// newVerifyClient returns the polite client Verify uses by default. It
// does not follow redirects: archive crawlers record a redirect and queue
// its target like a link, and a redirect loop is then one answer, not a
// failure retried with backoff.
func newVerifyClient(rate float64, contact string) source.Doer {
	return fetch.New(fetch.Options{Rate: rate, Contact: contact, Transport: unfollowed{http.DefaultTransport}})
}

// unfollowed moves the Location header of redirects aside, so that the
// http.Client above it returns them as they are.
type unfollowed struct{ rt http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (t unfollowed) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(r)
	if err == nil && isRedirect(resp.StatusCode) {
		if loc := resp.Header.Get("Location"); loc != "" {
			resp.Header.Del("Location")
			resp.Header.Set(redirectHeader, loc)
		}
	}
	return resp, err
}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// redirectLocation returns the target of a redirect answer, or "".
func redirectLocation(resp *http.Response) string {
	if !isRedirect(resp.StatusCode) {
		return ""
	}
	return cmp.Or(resp.Header.Get(redirectHeader), resp.Header.Get("Location"))
}

// redirect returns where a redirect from u to loc leads, if the crawl is
// to fetch it now: a URL on the site, under its path, not seen before.
// chain holds the URLs of this redirect chain; a loop, a chain longer
// than maxRedirects and a redirect off the site are failures of the page,
// a redirect to a page already queued or fetched is not (that page is
// crawled anyway).
func (cr *crawler) redirect(u *url.URL, loc string, depth int, chain map[string]bool) *url.URL {
	ref, err := url.Parse(loc)
	if err != nil {
		cr.fail(u, fmt.Sprintf("redirect to an invalid URL %q", loc), depth)
		return nil
	}
	next := u.ResolveReference(ref)
	next.Fragment, next.RawFragment = "", ""
	k := siteurl.PathKey(next)
	if why := cr.offSite(u, next); why != "" {
		cr.fail(u, why, depth)
		return nil
	}
	switch {
	case chain[k]:
		cr.fail(u, "redirect loop through "+next.Redacted(), depth)
		return nil
	case len(chain) > maxRedirects:
		cr.fail(u, fmt.Sprintf("more than %d redirects", maxRedirects), depth)
		return nil
	}
	chain[k] = true
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.seen[k] {
		return nil // queued or fetched already
	}
	cr.seen[k] = true
	return next
}

// offSite says why a redirect from u to next leaves the site ("redirects
// off the site", to another scheme, host or port, or "redirects out of
// the site's path"), or "" if it does not. It judges the redirects the
// crawl follows and, when the Client follows them itself, the final URL
// of the answer.
func (cr *crawler) offSite(u, next *url.URL) string {
	switch {
	case !strings.EqualFold(next.Host, u.Host) || next.Scheme != u.Scheme:
		return "redirects off the site, to " + next.Redacted()
	case !strings.HasPrefix(next.EscapedPath(), cr.prefix) && next.EscapedPath()+"/" != cr.prefix:
		return "redirects out of the site's path, to " + next.Redacted()
	}
	return ""
}

// maxRobotsRedirects bounds the redirects followed for robots.txt (RFC
// 9309 §2.3.1.2 asks for at least five).
const maxRobotsRedirects = 5

// getRobots GETs robots.txt, following up to maxRobotsRedirects
// redirects on the same host; the last redirect is returned as it is.
func (cr *crawler) getRobots(ctx context.Context, u *url.URL) (*http.Response, error) {
	for hops := 0; ; hops++ {
		resp, err := cr.get(ctx, u)
		if err != nil {
			return nil, err
		}
		loc := redirectLocation(resp)
		if loc == "" || hops == maxRobotsRedirects {
			return resp, nil
		}
		ref, err := url.Parse(loc)
		if err != nil {
			return resp, nil
		}
		next := u.ResolveReference(ref)
		if !strings.EqualFold(next.Host, u.Host) {
			return resp, nil
		}
		resp.Body.Close()
		u = next
	}
}
