package status

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// statusHistory is the serve histories merged: records by Digest (the
// earliest kept, see history.Earlier) and by every digest of either
// algorithm, and the manifests that verify with the key.
type statusHistory struct {
	records   map[string]history.Record
	digests   history.Digests
	manifests map[string]*manifest.Signed
	urls      map[string][]history.Record // by page path, oldest first
}

// loadHistory reads every history store. A store that cannot be read is
// an error: the user named it, and without it every capture would be
// fetched. Manifests and records made after Now are left out: an audit
// as of a past time judges the generations made by then.
func (r *statusRun) loadHistory(ctx context.Context) error {
	h := &statusHistory{records: map[string]history.Record{}, manifests: map[string]*manifest.Signed{}, urls: map[string][]history.Record{}}
	r.hist = h
	r.rep.History.Stores = len(r.o.History)
	for i, st := range r.o.History {
		ix, err := history.Load(ctx, st)
		if err != nil {
			return fmt.Errorf("history %d: %w", i+1, err)
		}
		r.rep.History.Skipped += ix.Skipped
		r.rep.History.Truncated = r.rep.History.Truncated || ix.Truncated
		for gen, env := range ix.Manifests {
			if h.manifests[gen] != nil {
				continue
			}
			m, err := verifiedManifest(env, r.v)
			if err == nil && m.Manifest.Generation.String() != gen {
				err = fmt.Errorf("manifest of generation %s recorded as generation %s", m.Manifest.Generation, gen)
			}
			if err != nil {
				if errors.Is(err, keys.ErrUnknownSigner) {
					r.foreign++
				}
				r.problem("history: %v", manifestError(gen, err))
				continue
			}
			if r.madeLater(m) {
				continue // made after the audit's time (--as-of)
			}
			h.manifests[gen] = m
			r.addManifest(m)
		}
		for d, rec := range ix.Records {
			if rec.Time.After(r.o.Now) {
				continue // served only after the audit's time
			}
			if old, ok := h.records[d]; ok {
				rec = history.Earlier(old, rec)
			}
			h.records[d] = rec
		}
	}
	h.digests = history.NewDigests(h.records)
	for _, rec := range h.records {
		h.urls[rec.URL] = append(h.urls[rec.URL], rec)
	}
	for _, recs := range h.urls {
		sort.Slice(recs, func(i, j int) bool { return recs[i].Time.Before(recs[j].Time) })
	}
	r.rep.History.Records = len(h.records)
	r.rep.History.Manifests = len(h.manifests)
	return nil
}

// manifestError names the generation in a history manifest's error,
// unless the error names it already (verifiedManifest's do).
func manifestError(gen string, err error) error {
	if strings.Contains(err.Error(), "generation "+gen) {
		return err
	}
	return fmt.Errorf("manifest of generation %s: %w", gen, err)
}

// paths returns the page paths the history knows, sorted.
func (h *statusHistory) paths() []string {
	out := make([]string, 0, len(h.urls))
	for u := range h.urls {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}

// carrierPaths returns the page paths the history records as carrying
// blocks.
func (h *statusHistory) carrierPaths() map[string]bool {
	out := map[string]bool{}
	for p, recs := range h.urls {
		for _, rec := range recs {
			if len(rec.Blocks) > 0 {
				out[p] = true
				break
			}
		}
	}
	return out
}

// record returns the record of a digest as a listing spells it, of
// either algorithm; false if the digest does not parse or is not
// recorded.
func (h *statusHistory) record(listed string) (history.Record, bool) {
	return h.digests.Lookup(h.records, listed)
}

// held returns what a recorded page version holds, or false when the
// history cannot say: no record, or a generation it names has no
// verified manifest (its segment names cannot be resolved).
func (h *statusHistory) held(digest string) (*statusHeld, bool) {
	rec, ok := h.record(digest)
	if !ok {
		return nil, false
	}
	out := &statusHeld{}
	if rec.Manifest != "" {
		m := h.manifests[rec.Manifest]
		if m == nil {
			return nil, false
		}
		out.manifests = append(out.manifests, m.Manifest.Generation)
	}
	for gen, refs := range rec.Blocks {
		m := h.manifests[gen]
		if m == nil {
			return nil, false
		}
		for _, s := range refs {
			var ref manifest.BlockRef
			if ref.UnmarshalText([]byte(s)) != nil {
				return nil, false
			}
			seg := segmentNamed(m, ref.Segment)
			if seg == nil || int(ref.Stripe) >= seg.Stripes || int(ref.Shard) >= seg.K+seg.M {
				return nil, false
			}
			out.shards = append(out.shards, heldShard{seg: manifest.SegmentKey{ID: seg.ID, Name: seg.Name}, stripe: ref.Stripe, shard: ref.Shard})
			out.minBytes += int64(seg.ShardSize)
		}
	}
	return out, true
}

// segmentNamed returns m's segment of that name, nil if none.
func segmentNamed(m *manifest.Signed, name string) *manifest.Segment {
	for i := range m.Manifest.Segments {
		if m.Manifest.Segments[i].Name == name {
			return &m.Manifest.Segments[i]
		}
	}
	return nil
}
