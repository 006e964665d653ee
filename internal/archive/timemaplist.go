package archive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// DefaultMaxTimeMapPages bounds the TimeMap pages one listing follows.
const DefaultMaxTimeMapPages = 100

// TimeMapOptions tunes ListTimeMap. The zero value is ready to use.
type TimeMapOptions struct {
	// Source names the captures' source; defaults to "memento".
	Source string
	// MaxPages bounds the pages fetched; defaults to DefaultMaxTimeMapPages.
	MaxPages int
	// MaxBytes bounds one answer; defaults to DefaultMaxBytes.
	MaxBytes int64
	// MaxRows bounds the mementos delivered; defaults to DefaultMaxRows.
	MaxRows int
	// MaxListBytes bounds the bytes of all pages; defaults to
	// DefaultMaxListBytes.
	MaxListBytes int64
	// MaxFieldBytes bounds a memento's URI-M and original; defaults to
	// DefaultMaxFieldBytes.
	MaxFieldBytes int
	// Budget, if set, is shared with other listings of the same source and
	// lowers MaxRows and MaxListBytes to what it has left; defaults to
	// none.
	Budget *Budget
	// Hosts are the archives (domains, subdomains included) whose
	// mementos may be delivered besides those on the TimeMap's own host;
	// nil defaults to KnownArchiveHosts, an empty non-nil slice allows
	// only the TimeMap's host. Further TimeMap pages must always be on
	// the TimeMap's host.
	Hosts []string
}

// validate checks the options and fills defaults.
func (o TimeMapOptions) validate() (TimeMapOptions, limits, error) {
	lim, err := newLimits(o.MaxPages, o.MaxRows, o.MaxBytes, o.MaxListBytes, o.MaxFieldBytes, DefaultMaxTimeMapPages)
	if err != nil {
		return o, limits{}, err
	}
	if o.Source == "" {
		o.Source = "memento"
	}
	if o.Hosts == nil {
		o.Hosts = KnownArchiveHosts
	}
	return o, lim, nil
}

// ListTimeMap fetches the TimeMap at timemapURL and every further page it
// links with rel="timemap" on the same host (breadth first, each URL at
// most once), and calls fn for each memento whose URI-M is on that host or
// one of Hosts. A 404 answer counts as a page without mementos
// (aggregators answer 404 for unknown URLs); other non-200 answers are
// *HTTPError. It stops at fn's first error and returns it. Links to other
// hosts are not followed, and at a bound (pages, rows, bytes) the listing
// stops; either way it returns a *ListError after delivering the rest.
func ListTimeMap(ctx context.Context, doer Doer, timemapURL string, opts TimeMapOptions, fn func(Capture) error) error {
	o, lim, err := opts.validate()
	if err != nil {
		return err
	}
	home, err := url.Parse(timemapURL)
	if err != nil || !isWeb(home) {
		return fmt.Errorf("archive: timemap url %q is not an absolute http(s) URL", timemapURL)
	}
	t := newTally(lim, o.Budget)
	queue := []string{timemapURL}
	seen := map[string]bool{timemapURL: true}
	for len(queue) > 0 {
		if t.pages >= lim.pages {
			t.stop(ErrPageLimit, "%d timemap pages", lim.pages)
			break
		}
		u := queue[0]
		queue = queue[1:]
		pages, err := listTimeMapPage(ctx, doer, u, o, t, home, fn)
		for read := 2; errors.Is(err, errRead) && read <= maxPageReads && ctx.Err() == nil; read++ {
			pages, err = listTimeMapPage(ctx, doer, u, o, t, home, fn) // nothing was delivered: ask again
		}
		if err == errStop {
			break
		}
		if err != nil {
			t.result()
			return err
		}
		for _, p := range t.sameHostLinks(home, pages) {
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	return t.result()
}

// sameHostLinks returns the links on home's host, counting the others.
func (t *tally) sameHostLinks(home *url.URL, links []string) []string {
	var out []string
	for _, l := range links {
		u, err := url.Parse(l)
		switch {
		case l == "":
		case err != nil || !isWeb(u) || !sameHost(home, u):
			t.foreignLink(hostOf(u, l))
		default:
			out = append(out, l)
		}
	}
	return out
}

// hostOf names the host of a link for a report.
func hostOf(u *url.URL, raw string) string {
	if u != nil && u.Host != "" {
		return u.Host
	}
	return fmt.Sprintf("%.60q", raw)
}

// listTimeMapPage fetches one TimeMap page, delivers its mementos and
// returns the further pages it links. At a bound it returns errStop.
func listTimeMapPage(ctx context.Context, doer Doer, u string, o TimeMapOptions, t *tally, home *url.URL, fn func(Capture) error) ([]string, error) {
	t.pages++
	rc, _, err := Open(ctx, doer, u, http.StatusNotFound)
	if err != nil || rc == nil {
		return nil, err // 404: no mementos
	}
	defer rc.Close()
	body := t.body(rc)
	doc, err := io.ReadAll(body)
	if body.hit {
		doc = doc[:bytes.LastIndexByte(doc, '\n')+1] // the last link may be cut
	} else if err != nil {
		return nil, fmt.Errorf("archive: GET %s: %w: %w", u, errRead, err)
	}
	tm := &TimeMap{}
	var callerErr error
	err = scanTimeMap(string(doc), u, tm, func(c Capture) error {
		if !t.fits(c.URL, c.Replay) || !t.mementoHost(home, c.Replay, o.Hosts) {
			return nil
		}
		c.Source = o.Source
		err := t.deliver(c, fn)
		if err != nil && err != errStop {
			callerErr = err
		}
		return err
	})
	t.badRows += tm.Malformed
	switch {
	case callerErr != nil:
		return nil, callerErr
	case err == errStop:
		return nil, errStop
	case body.hit:
		return nil, t.stop(ErrTooLarge, "%s", body.bound)
	case err != nil:
		return nil, fmt.Errorf("archive: timemap %s: %w", u, err)
	}
	return tm.Pages, nil
}

// mementoHost reports whether a URI-M may be fetched: an http(s) URL on
// the TimeMap's host or in hosts. Others are counted as foreign links.
func (t *tally) mementoHost(home *url.URL, urim string, hosts []string) bool {
	u, err := url.Parse(urim)
	if err == nil && isWeb(u) && (sameHost(home, u) || inDomains(u.Hostname(), hosts)) {
		return true
	}
	t.foreignLink(hostOf(u, urim))
	return false
}
