package placement

import (
	"fmt"
	"testing"
)

// benchSite returns n carriers: the root, 30 pages at depth 1 and the rest
// spread over depths 2 and 3, each with room for 800 KiB.
func benchSite(n int) []Carrier {
	cs := []Carrier{{URL: "/", Capacity: 800 * kiB}}
	for i := 1; i < n; i++ {
		depth := 1 + min(2, i/30)
		if depth == 3 && i%2 == 0 {
			depth = 2
		}
		cs = append(cs, Carrier{URL: fmt.Sprintf("/page/%04d/", i), Depth: depth, Capacity: 800 * kiB})
	}
	return cs
}

// BenchmarkPlace_1000Pages plans a 50 MB segment at z = 48 KiB (9 stripes,
// parity raised to 256 blocks per stripe) and five small segments on 1,000
// pages. The bytes per operation are the segments' bytes.
func BenchmarkPlace_1000Pages(b *testing.B) {
	cs := benchSite(1000)
	segs := []Segment{{Name: "site", Length: 50_000_000}}
	for i := range 5 {
		segs = append(segs, Segment{Name: fmt.Sprintf("db%d", i), Length: int64(20_000 * (i + 1))})
	}
	opts := Options{ManifestBytes: 12 * kiB}
	var total int64
	for _, s := range segs {
		total += s.Length
	}
	pl := mustPlace(b, segs, cs, opts)
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Place(segs, cs, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(pl.Coverage)), "blocks")
}

// BenchmarkPlace_5000Pages_200Segments: many small segments on a large
// site, where replicas and raised parity dominate.
func BenchmarkPlace_5000Pages_200Segments(b *testing.B) {
	cs := benchSite(5000)
	var segs []Segment
	var total int64
	for i := range 200 {
		segs = append(segs, Segment{Name: fmt.Sprintf("s%03d", i), Length: int64(1000 + 997*i)})
		total += segs[i].Length
	}
	opts := Options{ManifestBytes: 12 * kiB}
	mustPlace(b, segs, cs, opts)
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Place(segs, cs, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlaceTarget_1000Pages is BenchmarkPlace_1000Pages as a target
// plan (0.999 at a capture probability of 1/2): the search over block
// sizes and widths, the exact check of the option placed. Reported: the
// bytes added per byte of segment.
func BenchmarkPlaceTarget_1000Pages(b *testing.B) {
	benchTarget(b, benchSite(1000), 6, nil)
}

// BenchmarkPlaceTarget_10000Pages_Rates: a 50 MB segment and five small
// ones on 10,000 pages whose capture probabilities vary (a status
// report's), where options are tried by the exact model.
func BenchmarkPlaceTarget_10000Pages_Rates(b *testing.B) {
	cs := benchSite(10000)
	capt := map[string]float64{}
	for i, c := range cs {
		capt[c.URL] = 0.05 + 0.9*float64((i*7919)%1000)/1000
	}
	benchTarget(b, cs, 6, capt)
}

func benchTarget(b *testing.B, cs []Carrier, nsegs int, capt map[string]float64) {
	segs := []Segment{{Name: "site", Length: 50_000_000}}
	for i := range nsegs - 1 {
		segs = append(segs, Segment{Name: fmt.Sprintf("db%d", i), Length: int64(20_000 * (i + 1))})
	}
	opts := Options{ManifestBytes: 12 * kiB, Target: DefaultTarget, NoSpare: true, MaxBlockBytes: 190 * kiB, Capture: capt}
	var total int64
	for _, s := range segs {
		total += s.Length
	}
	pl := mustPlace(b, segs, cs, opts, checkTargetPlan)
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Place(segs, cs, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(planBytes(pl))/float64(total), "added/byte")
	b.ReportMetric(pl.Recoverability, "P_rec")
}
