package status

import (
	"context"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// Held is what the archived captures were found to hold, of every source
// combined (as recover combines them): the verified manifests and the
// blocks. Capture requests must know which blocks are archived, not only
// how many per stripe, which is what the report counts.
type Held struct {
	Manifests map[manifest.ID]bool
	Shards    map[manifest.BlockKey]bool
}

// RunHeld is Status that also returns what the captures hold.
func RunHeld(ctx context.Context, o Options) (*Report, *Held, error) {
	r, err := audit(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	h := &Held{Manifests: map[manifest.ID]bool{}, Shards: map[manifest.BlockKey]bool{}}
	for _, c := range r.caps {
		if c.held == nil {
			continue
		}
		for _, m := range c.held.manifests {
			h.Manifests[m] = true
		}
		for _, s := range c.held.shards {
			h.Shards[manifest.BlockKey{Segment: s.seg, Stripe: s.stripe, Shard: s.shard}] = true
		}
	}
	return r.rep, h, nil
}
