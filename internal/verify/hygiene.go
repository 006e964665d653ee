package verify

import (
	"cmp"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/lazarus-preserve/lazarus/internal/siteurl"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// hygiene checks the signals of the root page and of up to HygienePages
// carriers of the generation, shallowest first, then what crawlers asking
// for each content coding get from the first of them.
func (v *verification) hygiene(ctx context.Context) error {
	if v.o.HygienePages < 0 {
		return nil
	}
	v.progress("hygiene")
	sample := v.hygieneSample()
	for _, u := range sample {
		hc, err := v.checkSignals(ctx, u, v.t.first[u])
		if err != nil {
			return err
		}
		v.rep.Hygiene = append(v.rep.Hygiene, hc)
	}
	return v.encodings(ctx, sample)
}

// hygieneSample returns the root page and the first HygienePages pages
// archives would keep that carry the generation's blocks or manifest, by
// depth, then URL, each page (by pageKey) once.
func (v *verification) hygieneSample() []string {
	t, g := v.t, v.target
	idx := t.segmentIndexes(g)
	var carriers []*pageSeen
	for _, ps := range t.pages {
		if ps.depth > 0 && carries(ps, idx, g) {
			carriers = append(carriers, ps)
		}
	}
	slices.SortFunc(carriers, func(a, b *pageSeen) int { return cmp.Or(cmp.Compare(a.depth, b.depth), cmp.Compare(a.url, b.url)) })
	out := []string{t.rootURL}
	checked := map[string]bool{siteurl.PageKeyOf(t.rootURL): true} // a page once, under its first URL
	for _, ps := range carriers {
		if len(out) > v.o.HygienePages {
			break
		}
		if !checked[ps.key] {
			checked[ps.key] = true
			out = append(out, ps.url)
		}
	}
	return out
}

// carries reports whether archives would keep some block or the manifest
// of g on the page.
func carries(ps *pageSeen, idx map[int32]int, g *generation) bool {
	for _, b := range ps.blocks {
		if _, ok := idx[b.key.seg]; ok && b.w == kept {
			return true
		}
	}
	for _, m := range ps.manifests {
		if m.key == g.id && m.w == kept {
			return true
		}
	}
	return false
}

// answer is what one GET gave.
type answer struct {
	status     int
	sum        [32]byte
	etag, lmod string
}

// checkSignals GETs a page again and conditionally: the bytes and
// validators must not change between two GETs of an unchanged page (a
// wrong "changed" signal costs a crawler's trust), and If-None-Match with
// the ETag or If-Modified-Since with the Last-Modified must be answered
// 304.
func (v *verification) checkSignals(ctx context.Context, u string, first firstGet) (HygieneCheck, error) {
	hc := HygieneCheck{URL: u, ETag: first.etag, LastModified: first.lmod}
	second, err := v.getOnce(ctx, u, nil)
	if err != nil {
		if ctx.Err() != nil {
			return hc, ctx.Err()
		}
		hc.Problems = append(hc.Problems, "a second GET failed: "+err.Error())
		return hc, nil
	}
	if second.status != http.StatusOK {
		hc.Problems = append(hc.Problems, fmt.Sprintf("a second GET was answered %d", second.status))
		return hc, nil
	}
	hc.Problems = append(hc.Problems, compareAnswers(first, second)...)
	if first.etag == "" && first.lmod == "" {
		hc.Problems = append(hc.Problems, "neither ETag nor Last-Modified: crawlers cannot revalidate the page and fetch it whole every time")
	}
	for _, c := range []struct{ header, value, name string }{
		{"If-None-Match", first.etag, "the ETag"},
		{"If-Modified-Since", first.lmod, "the Last-Modified date"},
	} {
		if c.value == "" {
			continue
		}
		a, err := v.getOnce(ctx, u, http.Header{c.header: {c.value}})
		switch {
		case err != nil && ctx.Err() != nil:
			return hc, ctx.Err()
		case err != nil:
			hc.Problems = append(hc.Problems, fmt.Sprintf("a GET with %s failed: %v", c.header, err))
		case a.status != http.StatusNotModified:
			hc.Problems = append(hc.Problems, fmt.Sprintf("a GET with %s: %s was answered %d, not 304: crawlers that revalidate fetch the page whole every time", c.header, c.name, a.status))
		}
	}
	return hc, nil
}

// compareAnswers says what changed between two GETs.
func compareAnswers(first firstGet, second answer) []string {
	var out []string
	same := first.sum == second.sum
	if !same {
		out = append(out, "two GETs gave different bytes: the page changes on every request, so archives store a new copy each time and recovery cannot tell which is current")
	}
	for _, c := range []struct{ name, a, b string }{{"ETag", first.etag, second.etag}, {"Last-Modified", first.lmod, second.lmod}} {
		switch {
		case same && c.a != c.b:
			out = append(out, fmt.Sprintf("%s changed between two GETs of the same bytes (%q, then %q): a false \"changed\" signal; crawlers learn to distrust it", c.name, c.a, c.b))
		case !same && c.a != "" && c.a == c.b:
			out = append(out, fmt.Sprintf("%s stayed %q while the bytes changed: crawlers that revalidate keep a stale copy", c.name, c.a))
		}
	}
	return out
}

// getOnce GETs u with extra headers and reads the body.
func (v *verification) getOnce(ctx context.Context, u string, h http.Header) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return answer{}, err
	}
	for k, vs := range h {
		req.Header[k] = vs
	}
	resp, err := v.o.Client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	hash := sha256.New()
	if _, err := io.Copy(hash, io.LimitReader(resp.Body, source.DefaultMaxCapture)); err != nil {
		return answer{}, err
	}
	a := answer{status: resp.StatusCode, etag: resp.Header.Get("ETag"), lmod: resp.Header.Get("Last-Modified")}
	copy(a.sum[:], hash.Sum(nil))
	return a, nil
}
