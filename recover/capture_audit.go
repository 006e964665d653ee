package recover

import (
	"context"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// archived is what the archives hold, as Status found it: its report,
// and which blocks and manifests the captures hold (of every source
// combined, as recover combines them).
type archived struct {
	report    *StatusReport
	shards    map[capShard]bool
	manifests map[manifest.ID]bool
}

// auditArchives runs Status and keeps, besides its report, the blocks
// and manifests every capture was found to hold: Status's report counts
// them per stripe, capture requests must know which.
func auditArchives(ctx context.Context, o StatusOptions) (*archived, error) {
	r, err := audit(ctx, o)
	if err != nil {
		return nil, err
	}
	a := &archived{report: r.rep, shards: map[capShard]bool{}, manifests: map[manifest.ID]bool{}}
	for _, c := range r.caps {
		if c.held == nil {
			continue
		}
		for _, m := range c.held.manifests {
			a.manifests[m] = true
		}
		for _, h := range c.held.shards {
			a.shards[capShard{seg: h.seg, stripe: h.stripe, shard: h.shard}] = true
		}
	}
	return a, nil
}

// safe reports whether the report says generation id is the newest and
// recoverable from the archives.
func (a *archived) safe(id manifest.ID) bool {
	rp := a.report.RestorePoint
	return rp != nil && rp.Newest && rp.Generation == id.String()
}
