package sim

import "testing"

func TestRequestOrder(t *testing.T) {
	c := smallConfig()
	_, gens := runParts(t, &c, 0)
	for _, p := range Policies() {
		for g, in := range gens[p] {
			l := in.l
			carriers := l.carriers()
			if len(in.first)+len(in.rest) > len(carriers) {
				t.Errorf("%s generation %d: %d+%d requests for %d carriers", p, g, len(in.first), len(in.rest), len(carriers))
			}
			seen := map[int]bool{}
			for i, u := range append(append([]int{}, in.first...), in.rest...) {
				if seen[u] {
					t.Errorf("%s generation %d: page %d asked for twice", p, g, u)
				}
				seen[u] = true
				if i < l.manifests() && !l.isMan[u] {
					t.Errorf("%s generation %d: request %d is page %d, not a manifest page", p, g, i, u)
				}
			}
			// The first round reaches K + margin requested blocks on every
			// stripe (or all of its blocks).
			have := make([]int, len(l.need))
			for _, u := range in.first {
				for _, b := range l.pages[u] {
					have[b.stripe]++
				}
			}
			for s, h := range have {
				if want := min(l.width[s], l.need[s]+requestMargin(l.need[s])); h < want {
					t.Errorf("%s generation %d: stripe %d has %d requested blocks, want %d", p, g, s, h, want)
				}
			}
		}
	}
}

func TestWidestParams(t *testing.T) {
	// 100 KiB over 10 pages with 300 KiB: blocks of about 22 KiB armored
	// (room 30 KiB each), k = 5 data blocks of 20 KiB.
	p, err := widestParams(segment{name: "s", length: 100 << 10}, 300<<10, 10)
	if err != nil {
		t.Fatal(err)
	}
	if p.Shards() != 10 || p.Stripes() != 1 || p.K != 5 {
		t.Errorf("got %v (%d stripes), want k = 5 of 10 in one stripe", p, p.Stripes())
	}
	if _, err := widestParams(segment{name: "s", length: 100 << 10}, 50<<10, 10); err == nil {
		t.Error("50 KiB for 100 KiB of data: no error")
	}
	if _, err := widestParams(segment{name: "s", length: 100 << 10}, 100, 10); err == nil {
		t.Error("10 bytes a page: no error")
	}
}
