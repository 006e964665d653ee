package assure

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// byteReader hands out fuzz bytes, zeros when they run out.
type byteReader []byte

func (r *byteReader) next() int {
	if len(*r) == 0 {
		return 0
	}
	b := (*r)[0]
	*r = (*r)[1:]
	return int(b)
}

// fuzzSite builds a site and options of any shape, many of them invalid,
// from data.
func fuzzSite(data []byte) (Site, Options) {
	r := byteReader(data)
	site := Site{Now: now}
	if r.next() == 255 {
		site.Now = time.Time{}
	}
	for i := range r.next() % 4 {
		site.Segments = append(site.Segments, Segment{
			Name: fmt.Sprint("s", i%3), K: r.next() - 5, M: r.next() - 5,
			Stripes: (r.next() - 5) << (r.next() % 24), Listing: r.next()%4 == 0,
		})
	}
	archives := []string{"ia", "cc", ""}
	for range r.next() % 12 {
		p := Page{URL: fmt.Sprint("u", r.next()%16), Depth: (r.next() - 2) << (r.next() % 32), Notice: r.next()%2 == 0,
			Since: now.Add(-time.Duration(r.next()) * Day)}
		for range r.next() % 6 {
			p.Blocks = append(p.Blocks, manifest.BlockRef{Segment: fmt.Sprint("s", r.next()%4), Stripe: uint32(r.next() % 8), Shard: uint16(r.next())})
		}
		p.Captures = map[string][]Capture{}
		for range r.next() % 10 {
			a := archives[r.next()%len(archives)]
			off := time.Duration(r.next()-20) * Day / time.Duration(1+r.next())
			p.Captures[a] = append(p.Captures[a], Capture{Time: now.Add(-off), Digest: fmt.Sprint(r.next() % 3)})
		}
		site.Pages = append(site.Pages, p)
	}
	if n := r.next() % 4; n > 0 {
		site.Archived = map[string][]manifest.BlockRef{}
		for range n {
			a := archives[r.next()%len(archives)]
			site.Archived[a] = append(site.Archived[a], manifest.BlockRef{Segment: fmt.Sprint("s", r.next()%4), Stripe: uint32(r.next() % 8), Shard: uint16(r.next())})
		}
	}
	for range r.next() % 3 {
		site.Rotations = append(site.Rotations, now.Add(-time.Duration(r.next())*Day))
	}
	o := Options{
		Window:       time.Duration(r.next()-2) * Day,
		SweepGap:     time.Duration(r.next()-2) * time.Hour,
		MinCaptures:  r.next() - 2,
		MinPoolPages: r.next() - 2,
		Target:       float64(r.next()-5) / 200,
		Horizon:      time.Duration(r.next()-2) * Day << (r.next() % 8),
		Samples:      r.next()%40 - 2,
		Seed:         uint64(r.next()),
	}
	if r.next()%2 == 0 {
		o.ChangeAware = []string{"ia"}
	}
	for range r.next() % 4 {
		o.At = append(o.At, time.Duration(r.next()-2)*Day)
	}
	o.PriorDays = time.Duration(r.next()-2) * Day
	o.PriorInterval = time.Duration(r.next()-2) * Day
	o.NoPrior = r.next()%4 == 0
	return site, o
}

// FuzzAssess: any input gives either an error wrapping ErrInvalid or a
// well-formed assessment (probabilities in [0, 1], one per time, curves
// that never fall), never a panic.
func FuzzAssess(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 1, 0, 8, 7, 6, 1, 9, 3, 2, 1, 4, 5, 1, 3, 0, 9, 1, 2, 3, 4, 0, 1, 2, 3})
	f.Add([]byte{1, 2, 0, 25, 15, 6, 0, 1, 30, 10, 6, 2, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18})
	f.Fuzz(func(t *testing.T, data []byte) {
		site, o := fuzzSite(data)
		a, err := Assess(site, o)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error not wrapping ErrInvalid: %v", err)
			}
			return
		}
		for _, v := range []View{a.Independent, a.Sweep} {
			curves := []Curve{v.Generation}
			for _, s := range v.Segments {
				curves = append(curves, s.Curve)
				if len(s.Weakest) > maxWeakest {
					t.Fatalf("%d weakest stripes", len(s.Weakest))
				}
			}
			for _, c := range curves {
				if len(c.P) != len(a.At) || len(c.StdErr) != len(a.At) {
					t.Fatalf("curve has %d/%d values for %d times", len(c.P), len(c.StdErr), len(a.At))
				}
				for j, p := range c.P {
					if !(p >= 0 && p <= 1) || math.IsNaN(c.StdErr[j]) {
						t.Fatalf("P = %v ± %v", p, c.StdErr[j])
					}
					if j > 0 && a.At[j] >= a.At[j-1] && p < c.P[j-1]-1e-9 {
						t.Fatalf("P falls from %v to %v", c.P[j-1], p)
					}
				}
			}
		}
	})
}
