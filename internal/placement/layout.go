package placement

import "github.com/lazarus-preserve/lazarus/internal/odds"

// Layout is the plan as the capture model reads it: which pages carry
// which blocks and the manifest, and each segment's k and stripe count.
func (p *Plan) Layout() odds.Layout {
	l := odds.Layout{Blocks: p.Pages, Manifest: p.Manifest, K: map[string]int{}, Stripes: map[string]int{}}
	for name, prm := range p.Params {
		l.K[name], l.Stripes[name] = prm.K, prm.Stripes()
	}
	return l
}
