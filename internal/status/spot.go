package status

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"

	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// spotCheck checks the archives' word: for each source, and each
// generation the verdict depends on (the newest and the restore point),
// it fetches SpotChecks captures chosen at random among those the
// history credited with that generation, and compares their bytes'
// digest and verified blocks with the record. A source that fails is
// distrusted for the whole run: its captures are fetched as if unknown
// (bounded by MaxFetches), and the verdict is worked out again, until no
// check fails.
func (r *statusRun) spotCheck(ctx context.Context) error {
	if r.o.SpotChecks <= 0 {
		return nil
	}
	done := map[string]bool{}
	for range len(r.srcs) + 1 {
		failed := false
		for _, g := range r.verdictGenerations() {
			for i := range r.srcs {
				key := fmt.Sprintf("%d/%s", i, g)
				if r.distrusted[i] || done[key] {
					continue
				}
				done[key] = true
				bad, err := r.spotSource(ctx, i, g)
				if err != nil {
					return err
				}
				failed = failed || bad
			}
		}
		if !failed {
			return nil
		}
		if err := r.fetchUnknown(ctx); err != nil {
			return err
		}
	}
	return nil
}

// spotSource spot-checks source i's captures credited with generation g
// and reports whether the verdict must be worked out again: a check
// failed (the source is then distrusted), or none of the captures tried
// could be fetched (see unreachable).
func (r *statusRun) spotSource(ctx context.Context, i int, g manifest.ID) (bool, error) {
	var cands []*statusCapture
	segs := r.segmentsOf(g)
	for _, c := range r.caps {
		if c.src == i && c.how == HowHistory && holdsGeneration(c.held, g, segs) {
			cands = append(cands, c)
		}
	}
	all := append([]*statusCapture(nil), cands...)
	failures, checked := 0, 0
	for checked < r.o.SpotChecks && len(cands) > 0 && failures < source.MaxTriesPerKey {
		j := randomIndex(len(cands))
		c := cands[j]
		cands = append(cands[:j], cands[j+1:]...)
		page, err := r.fetchPage(ctx, c)
		if err != nil {
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			failures++
			continue
		}
		checked++
		r.rep.Sources[i].SpotChecked++
		if why := r.compare(c, page); why != "" {
			r.distrust(c, page, why)
			return true, nil
		}
		c.how = HowChecked
	}
	if checked == 0 && failures > 0 {
		r.unreachable(i, g, all, failures)
		return true, nil
	}
	return false, nil
}

// unreachable withdraws the history's credit from source i's captures of
// generation g when none of its spot-check fetches succeeded: a check
// that could not fetch confirms nothing, and recover, which must fetch
// the copies, would fail on them too. They count as failed fetches.
func (r *statusRun) unreachable(i int, g manifest.ID, caps []*statusCapture, tries int) {
	sr := &r.rep.Sources[i]
	n := 0
	for _, c := range caps {
		if c.how == HowHistory {
			c.how, c.held, c.spotFailed = HowFailed, nil, true
			sr.Known--
			n++
		}
	}
	r.problem("%s: none of the %d spot-check fetches of its captures of generation %s succeeded: the archive's copies could not be fetched "+
		"(recover, which must fetch them, would fail too); its %d captures the history credits with that generation are not counted",
		sr.Name, tries, g, n)
}

// segmentsOf returns the segment versions generation g's manifest names.
func (r *statusRun) segmentsOf(g manifest.ID) map[manifest.SegmentKey]bool {
	out := map[manifest.SegmentKey]bool{}
	if sm := r.manifests[g]; sm != nil {
		for _, s := range sm.m.Manifest.Segments {
			out[manifest.SegmentKey{ID: s.ID, Name: s.Name}] = true
		}
	}
	return out
}

// holdsGeneration reports whether a capture is credited with generation
// g's manifest or a block of one of its segment versions.
func holdsGeneration(h *statusHeld, g manifest.ID, segs map[manifest.SegmentKey]bool) bool {
	if h == nil {
		return false
	}
	for _, m := range h.manifests {
		if m == g {
			return true
		}
	}
	for _, s := range h.shards {
		if segs[s.seg] {
			return true
		}
	}
	return false
}

// randomIndex is a uniformly random index below n (n > 0), from
// crypto/rand: an archive must not be able to guess which capture is
// checked.
func randomIndex(n int) int {
	v, err := rand.Int(rand.Reader, big.NewInt(int64(n)))
	if err != nil {
		return 0
	}
	return int(v.Int64())
}

// compare checks a fetched capture against what the history credited it
// with: the digest of its bytes, then its verified manifests and blocks.
// It returns why they differ, "" if they agree.
func (r *statusRun) compare(c *statusCapture, page []byte) string {
	cut := int64(len(page)) > r.o.MaxCapture
	if cut {
		page = page[:r.o.MaxCapture]
	}
	if d, _ := history.ParseDigest(c.c.Digest); !cut && !d.Matches(page) {
		return fmt.Sprintf("its bytes' digest is %s, not the listed %s", d.Algorithm().Of(page), c.c.Digest)
	}
	sc := scanStatus(page, r.v, cut)
	r.noteLinks(c.c.URL, pageLinks(page, r.pageURL(c.c.URL)))
	got := heldKeys(r.heldOf(sc))
	want := heldKeys(c.held)
	if len(got) != len(want) {
		return fmt.Sprintf("it holds %d verified manifests and blocks, the history records %d", len(got), len(want))
	}
	for k := range want {
		if !got[k] {
			return fmt.Sprintf("it lacks %s, which the history records", k)
		}
	}
	return ""
}

// heldKeys names what a capture holds, for comparing.
func heldKeys(h *statusHeld) map[string]bool {
	out := map[string]bool{}
	for _, m := range h.manifests {
		out["manifest "+m.String()] = true
	}
	for _, s := range h.shards {
		out[fmt.Sprintf("block %x/%s/%d/%d", s.seg.ID[:8], s.seg.Name, s.stripe, s.shard)] = true
	}
	return out
}

// distrust stops trusting source c.src's listed digests after c failed
// its spot check: every capture of it the history credited becomes
// unknown, under its own key (its digest cannot be relied on), and c is
// credited with what its bytes hold.
func (r *statusRun) distrust(c *statusCapture, page []byte, why string) {
	i := c.src
	sr := &r.rep.Sources[i]
	r.distrusted[i], sr.Distrusted = true, true
	r.problem("%s: spot check of %s captured %s failed: %s; this source's listed digests are not trusted in this run: its captures are fetched",
		sr.Name, c.c.URL, c.c.Time.Format("2006-01-02T15:04:05Z"), why)
	for _, o := range r.caps {
		if o.src == i && (o.how == HowHistory || o.how == HowChecked) {
			o.how, o.held, o.key = "", nil, locatorKey(o.c)
			sr.Known--
		}
	}
	cut := int64(len(page)) > r.o.MaxCapture
	if cut {
		page = page[:r.o.MaxCapture]
	}
	sc := scanStatus(page, r.v, cut)
	r.took(c.key, sc, c, []*statusCapture{c})
}
