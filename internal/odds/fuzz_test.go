package odds

import (
	"math"
	"testing"
	"time"
)

// FuzzFit fits the model to arbitrary histories (an archive's listing is
// untrusted: any pages, any times, bursts and repeats) and checks that it
// stays a model: sweep rates finite and non-increasing in depth, take in
// [0, 1], and a probability in [0, 1] from it.
func FuzzFit(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 2, 0, 3, 0, 0, 200, 1, 200})
	f.Add([]byte{5, 5, 5, 5, 5, 5, 5, 5})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		var pages []Page
		for i := range 12 {
			pages = append(pages, Page{Key: string(rune('a' + i)), Depth: i % 4})
		}
		h := History{Now: now, Since: now.Add(-90 * Day), Pages: pages, Captures: map[string][]Capture{}}
		for i := 0; i+1 < len(data); i += 2 {
			name := "wayback"
			if data[i]&0x80 != 0 {
				name = "commoncrawl"
			}
			page := pages[int(data[i]&0x7f)%len(pages)].Key
			at := now.Add(-time.Duration(data[i+1]) * 9 * time.Hour)
			h.Captures[name] = append(h.Captures[name], Capture{Page: page, Time: at})
		}
		m := Fit(h)
		for _, a := range m.Archives {
			for d, r := range a.Sweeps {
				if math.IsNaN(r) || math.IsInf(r, 0) || r < 0 || (d > 0 && r > a.Sweeps[d-1]) {
					t.Fatalf("%s: sweep rates %v", a.Name, a.Sweeps)
				}
			}
			if !(a.Take >= 0 && a.Take <= 1) {
				t.Fatalf("%s: take %v", a.Name, a.Take)
			}
		}
		p := m.Recoverable(pages, []Need{{K: 4, Pages: []int{0, 1, 2, 3, 4, 5, 6, 7}}}, 30*Day)
		if !(p >= 0 && p <= 1) {
			t.Fatalf("probability %v", p)
		}
	})
}
