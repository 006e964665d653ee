package placement

import (
	"errors"
	"fmt"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/erasure"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// FuzzPlace decodes random bytes into a small site, segments (some fixed,
// with previous placements) and old blocks. Place must not panic; it
// returns a plan that satisfies every invariant, or an error of a
// documented kind.
//
// With the high bits of rhoSel the plan is a target plan, light (bit 4)
// or then filled, on pages whose keep probabilities the remaining bytes
// give (bit 5).
func FuzzPlace(f *testing.F) {
	f.Add([]byte("\x05\x40\x40\x40\x40\x40\x02\x10\x00\x20\x01"), uint16(8), uint8(1))
	f.Add([]byte("\x02\xff\x01\x00\x03\x80\x80\x80"), uint16(1), uint8(0))
	f.Add([]byte("\x10\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\xff\xfe\xfd"), uint16(300), uint8(2))
	f.Add([]byte("\x10\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\xff\xfe\xfd"), uint16(3), uint8(0xb0))
	f.Add([]byte("\x05\x40\x40\x40\x40\x40\x02\x10\x00\x20\x01"), uint16(8), uint8(0x61))
	f.Fuzz(func(t *testing.T, data []byte, zKiB uint16, rhoSel uint8) {
		segs, cs, opts := decodeInputs(data, zKiB, rhoSel)
		check := checkPlan
		if rhoSel&0x30 != 0 {
			opts.Target = []float64{0.5, 0.9, 0.999, 0.9999999}[rhoSel>>6]
			opts.NoSpare = rhoSel&0x10 != 0
			if opts.NoSpare {
				check = checkTargetPlan
			} else {
				check = func(segs []Segment, cs []Carrier, opts Options, pl *Plan) error {
					_, err := checkBlocks(pl, carriersByURL(cs), opts.ManifestBytes)
					return err
				}
			}
			if rhoSel&0x20 != 0 {
				opts.Capture = map[string]float64{}
				for i, c := range cs {
					opts.Capture[c.URL] = float64((int(zKiB)*31+i*17)%101) / 100
				}
			}
		}
		pl, err := Place(segs, cs, opts)
		var be *BudgetError
		switch {
		case err == nil:
			if err := check(segs, cs, opts, pl); err != nil {
				t.Fatal(err)
			}
		case errors.As(err, &be) && be.SuggestedMaxBlockBytes > 0:
			opts.MaxBlockBytes = be.SuggestedMaxBlockBytes
			if _, err := Place(segs, cs, opts); err != nil {
				t.Fatalf("suggested budget does not fit: %v", err)
			}
		case be == nil && !errors.Is(err, ErrTooFewPages) && !errors.Is(err, ErrInvalid):
			t.Fatalf("undocumented error %v", err)
		}
	})
}

// decodeInputs turns fuzz bytes into inputs: byte 0 the page count, then
// per page a depth and a capacity byte (KiB), then segments of three bytes
// (length KiB, fixed k, fixed m; k = 0 means new), then old blocks.
func decodeInputs(data []byte, zKiB uint16, rhoSel uint8) ([]Segment, []Carrier, Options) {
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return int(b)
	}
	opts := Options{
		MaxBlockBytes:  int(zKiB%2048) * kiB,
		Redundancy:     []float64{0, NoRedundancy, 0.5, 2}[rhoSel%4],
		ManifestBytes:  1 + next()*64,
		OldBeforeSpare: rhoSel&4 != 0,
	}
	cs := []Carrier{{URL: "/", Capacity: next() * 2 * kiB}}
	for i := range next() % 64 {
		cs = append(cs, Carrier{URL: fmt.Sprintf("/%d/", i), Depth: 1 + next()%4, Capacity: next() * kiB})
	}
	var segs []Segment
	for i := range next() % 5 {
		s := Segment{Name: fmt.Sprintf("s%d", i), Length: int64(next()) * int64(next()+1) * 100}
		if k, m := next()%8, next()%8; k > 0 {
			s = fixedSegment(s, k, m, next, cs)
		}
		segs = append(segs, s)
	}
	for i := range next() % 8 {
		opts.Old = append(opts.Old, OldBlock{
			Ref:  OldRef{Block: blockRef("old", i, 0)},
			Size: 1 + next()*200,
			URLs: []string{cs[next()%len(cs)].URL, cs[next()%len(cs)].URL},
		})
	}
	return segs, cs, opts
}

func fixedSegment(s Segment, k, m int, next func() int, cs []Carrier) Segment {
	p := erasure.Params{K: k, M: m, ShardSize: 1 + next()*40, Length: s.Length}
	if p.Validate() != nil || p.TotalShards() > 4096 {
		return s
	}
	s.Fixed = &p
	s.Previous = map[manifest.BlockRef][]string{}
	for j := range p.Stripes() {
		for sh := range p.Shards() {
			if u := next(); u%3 > 0 {
				s.Previous[blockRef(s.Name, j, sh)] = []string{cs[u%len(cs)].URL}
			}
		}
	}
	return s
}

func carriersByURL(cs []Carrier) map[string]Carrier {
	out := map[string]Carrier{}
	for _, c := range cs {
		out[c.URL] = c
	}
	return out
}
