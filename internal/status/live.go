package status

import (
	"context"
	"fmt"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/source"
)

// noNewerSeen is the note of an audit that cannot see a newer generation
// than the archived ones.
const noNewerSeen = "a newer generation may exist that status cannot see"

// live learns the generation the site serves now, when no serve history
// names one: without it the newest archived generation would pass for
// the newest. It fetches the site's root page once and takes its
// verified manifest, if newer than every manifest seen (and not made
// after Now), as the newest generation; it holds no archived block, so
// the verdict is then an older restore point or none. Failures are
// notes, not errors.
func (r *statusRun) live(ctx context.Context) {
	if len(r.hist.manifests) > 0 {
		return
	}
	if r.o.NoLive {
		r.rep.NewestUnconfirmed = true
		r.rep.Notes = append(r.rep.Notes, "Neither a serve history nor the live site was consulted: "+noNewerSeen+".")
		return
	}
	page, err := r.fetchLive(ctx)
	if err != nil {
		r.rep.NewestUnconfirmed = true
		r.rep.Notes = append(r.rep.Notes, fmt.Sprintf("No serve history was given and the live root page could not be read (%v): %s.", err, noNewerSeen))
		return
	}
	cut := int64(len(page)) > r.o.MaxCapture
	if cut {
		page = page[:r.o.MaxCapture]
	}
	sc := scanStatus(page, r.v, cut)
	var newest time.Time
	for _, sm := range r.manifests {
		if t := sm.m.Manifest.Time; t.After(newest) {
			newest = t
		}
	}
	for _, m := range sc.manifests {
		t, id := m.Manifest.Time, m.Manifest.Generation
		if r.madeLater(m) || !t.After(newest) || r.manifests[id] != nil {
			continue
		}
		r.addManifest(m)
		r.rep.Live = id.String()
		r.rep.Notes = append(r.rep.Notes, fmt.Sprintf("The live site serves generation %s of %s, newer than any archived manifest.",
			id, t.UTC().Format(time.RFC3339)))
		return
	}
}

// fetchLive reads the site's root page, at most MaxCapture+1 bytes, as
// recover fetches it from the live site.
func (r *statusRun) fetchLive(ctx context.Context) ([]byte, error) {
	root := r.site.String()
	page, _, err := source.Read(ctx, source.LiveSource{Client: r.o.Client}, source.Capture{URL: root, Locator: root}, r.o.MaxCapture+1)
	return page, err
}
