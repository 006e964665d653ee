package verify

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/siteurl"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// unlinkedReason is the reason given for pages no link reaches.
const unlinkedReason = "unlinked: no link from the root page reaches it"

// unlinkedFiles scans the site directory's HTML files that no crawled URL
// serves: "/a/b.html" serves a/b.html, "/a/" also a/index.html.
func (v *verification) unlinkedFiles(ctx context.Context) error {
	read := 0
	return filepath.WalkDir(v.o.SiteDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || ctx.Err() != nil {
			return cmp.Or(ctx.Err(), err)
		}
		if !d.Type().IsRegular() || !isHTMLFile(p) {
			return nil
		}
		rel, err := filepath.Rel(v.o.SiteDir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		u := v.served(rel)
		if u == nil {
			return nil
		}
		if read >= v.o.MaxPages {
			v.rep.problem("site directory: more than %d unlinked pages; the rest were not read", v.o.MaxPages)
			return fs.SkipAll
		}
		read++
		body, err := readFileCapped(p, source.DefaultMaxCapture)
		if err != nil {
			v.rep.problem("site directory: %v", err)
			return nil
		}
		v.rep.Crawl.Unlinked++
		v.scan(body, &pageSeen{url: u.String(), key: siteurl.PageKey(u), depth: -1, reason: unlinkedReason}, byUnlinked)
		return nil
	})
}

// served returns the URL of the site file rel (a slash path) if no
// crawled URL serves it, else nil.
func (v *verification) served(rel string) *url.URL {
	base := strings.TrimSuffix(v.root.EscapedPath(), "/") + "/"
	var cands []string
	p := base + (&url.URL{Path: rel}).EscapedPath()
	cands = append(cands, p)
	if name := path.Base(rel); name == "index.html" || name == "index.htm" {
		cands = append(cands, strings.TrimSuffix(p, name))
	}
	for _, c := range cands {
		if v.crawled[c] {
			return nil
		}
	}
	u := *v.root
	if err := siteurl.SetEscapedPath(&u, cands[len(cands)-1]); err != nil {
		return nil
	}
	return &u
}

func isHTMLFile(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".html", ".htm", ".xhtml":
		return true
	}
	return false
}

func readFileCapped(p string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

// unlinkedCarriers fetches the pages the placement plan names that the
// crawl did not read: carriers no link reaches, or pages gone.
func (v *verification) unlinkedCarriers(ctx context.Context, p *placementPlan) error {
	for i, pp := range p.unread(v.crawledKeys) {
		if i >= v.o.MaxPages {
			v.rep.problem("placement plan: more than %d carriers the crawl did not reach; the rest were not fetched", v.o.MaxPages)
			return nil
		}
		why, err := v.fetchUnlinked(ctx, pp.u)
		if err != nil {
			return err
		}
		pp.err = why
	}
	return nil
}

// fetchUnlinked fetches and scans one carrier no link reaches, or says
// why it could not.
func (v *verification) fetchUnlinked(ctx context.Context, u *url.URL) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err.Error(), nil
	}
	resp, err := v.o.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		v.rep.problem("carrier %s named by the placement plan: %v", u.Redacted(), err)
		return err.Error(), nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		v.rep.problem("carrier %s named by the placement plan: HTTP %d", u.Redacted(), resp.StatusCode)
		return fmt.Sprintf("HTTP %d", resp.StatusCode), nil
	}
	body, _, err := readPage(resp.Body, source.DefaultMaxCapture)
	if err != nil {
		v.rep.problem("carrier %s named by the placement plan: %v", u.Redacted(), err)
		return err.Error(), nil
	}
	v.rep.Crawl.Unlinked++
	v.scan(body, &pageSeen{url: u.String(), key: siteurl.PageKey(u), depth: -1, reason: unlinkedReason}, byUnlinked)
	return "", nil
}
