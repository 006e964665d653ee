package sim

import (
	"math"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/erasure"
)

// stripeLayout returns a layout of one stripe of k data and m parity
// blocks of 100 bytes, shard i on page i of a site of pages pages, and the
// manifest on the pages listed.
func stripeLayout(t *testing.T, pages, k, m int, manifest ...int) *layout {
	t.Helper()
	p, err := erasure.NewParams(int64(100*k), k, m, 100)
	if err != nil {
		t.Fatal(err)
	}
	l := newLayout([]segment{{name: "s", length: int64(100 * k)}}, []erasure.Params{p}, pages)
	for sh := range k + m {
		l.put(sh, 0, 0, sh)
	}
	for _, u := range manifest {
		l.putManifest(u)
	}
	return l
}

// caps builds natural captures from (day, page) pairs, in order.
func caps(pairs ...float64) []capture {
	var out []capture
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, capture{t: pairs[i], page: int(pairs[i+1])})
	}
	return out
}

func TestAccountHandMade(t *testing.T) {
	inf := math.Inf(1)
	two := func(t *testing.T) []genInput {
		// Two generations of one stripe (k = 2 of 3 shards on pages 0–2,
		// the manifest on page 0), published on days 0 and 10.
		return []genInput{{at: 0, l: stripeLayout(t, 3, 2, 1, 0)}, {at: 10, l: stripeLayout(t, 3, 2, 1, 0)}}
	}
	tests := []struct {
		name     string
		captures []capture
		rotation Rotation
		want     []outcome
		unsafe   []bool
	}{
		{
			// Generation 0: shard 1 on day 2, the manifest and shard 0 on
			// day 3. Generation 1: shards 2 and 1 on days 11 and 12, the
			// manifest on day 15.5; status sees it on day 16.
			name:     "make-before-break, both safe in time",
			captures: caps(2, 1, 3, 0, 11, 2, 12, 1, 15.5, 0),
			rotation: MakeBeforeBreak,
			want:     []outcome{{safe: 3, drop: 16}, {safe: 15.5, drop: inf}},
			unsafe:   []bool{false, false},
		},
		{
			// The same captures: generation 0 leaves the pages on day 10.
			name:     "break-before-make, both safe in time",
			captures: caps(2, 1, 3, 0, 11, 2, 12, 1, 15.5, 0),
			rotation: BreakBeforeMake,
			want:     []outcome{{safe: 3, drop: 10}, {safe: 15.5, drop: inf}},
			unsafe:   []bool{false, false},
		},
		{
			// Generation 0 has one shard when generation 1 comes; the
			// capture of page 0 on day 12 still stores generation 0's
			// manifest and shard 0 (safe on day 12) and generation 1's
			// manifest and shard 0; page 2 on day 13.5 completes
			// generation 1; status sees it on day 14.
			name:     "make-before-break keeps an unsafe generation",
			captures: caps(2, 1, 12, 0, 13.5, 2),
			rotation: MakeBeforeBreak,
			want:     []outcome{{safe: 12, drop: 14}, {safe: 13.5, drop: inf}},
			unsafe:   []bool{false, false},
		},
		{
			// The same captures: generation 0 is dropped on day 10 with one
			// shard and never completes, and nothing newer is recoverable
			// until day 13.5.
			name:     "break-before-make loses an unsafe generation",
			captures: caps(2, 1, 12, 0, 13.5, 2),
			rotation: BreakBeforeMake,
			want:     []outcome{{safe: inf, drop: 10}, {safe: 13.5, drop: inf}},
			unsafe:   []bool{true, false},
		},
		{
			// Captures at the instant generation 1 is published see
			// generation 1 only: generation 0 is gone under
			// break-before-make. Generation 1 is recoverable at that
			// instant, so the drop was not unsafe.
			name:     "publication before a capture at the same instant",
			captures: caps(1, 1, 10, 0, 10, 2),
			rotation: BreakBeforeMake,
			want:     []outcome{{safe: inf, drop: 10}, {safe: 10, drop: inf}},
			unsafe:   []bool{false, false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := ledgerOptions{rotation: tt.rotation, check: 1, end: 40}
			got := account(two(t), tt.captures, o, nil)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d outcomes, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("generation %d: got %+v, want %+v", i, got[i], tt.want[i])
				}
				if u := unsafeDrop(i, got, o.end); u != tt.unsafe[i] {
					t.Errorf("generation %d: unsafe drop %v, want %v", i, u, tt.unsafe[i])
				}
			}
		})
	}
}

func TestAccountAgeLimit(t *testing.T) {
	// Generation 1 is never recoverable: the age limit still drops
	// generation 0, 5 days after it was replaced.
	gens := []genInput{{at: 0, l: stripeLayout(t, 3, 2, 1, 0)}, {at: 10, l: stripeLayout(t, 3, 2, 1, 0)}}
	got := account(gens, caps(1, 0, 2, 1), ledgerOptions{rotation: MakeBeforeBreak, check: 1, maxAge: 5, end: 40}, nil)
	if got[0].safe != 2 || got[0].drop != 15 || !math.IsInf(got[1].safe, 1) {
		t.Errorf("got %+v, want generation 0 safe on day 2, dropped on day 15; generation 1 never safe", got)
	}
}

func TestAccountEndsAtEnd(t *testing.T) {
	// A capture on the last day is not counted.
	gens := []genInput{{at: 0, l: stripeLayout(t, 3, 2, 1, 0)}}
	got := account(gens, caps(1, 0, 5, 1), ledgerOptions{end: 5}, nil)
	if !math.IsInf(got[0].safe, 1) {
		t.Errorf("safe on day %g, want never (the capture is at the end)", got[0].safe)
	}
}

func TestAccountRequests(t *testing.T) {
	// k = 1 of 4 shards on pages 0–3, the manifest on page 0: the first
	// round asks for pages 0 and 1 (K + margin = 2 blocks), the audit for
	// pages 2 and 3.
	l := stripeLayout(t, 5, 1, 3, 0)
	first, rest := requestOrder(l)
	if len(first) != 2 || first[0] != 0 || first[1] != 1 || len(rest) != 2 || rest[0] != 2 || rest[1] != 3 {
		t.Fatalf("request order %v then %v, want [0 1] then [2 3]", first, rest)
	}
	gens := []genInput{{at: 3, l: l, first: first, rest: rest}}
	o := ledgerOptions{end: 40, requests: true, success: 1, audit: 1}
	if got := account(gens, nil, o, stream(&Config{}, 0, 0)); got[0].safe != 3 || got[0].requests != 2 {
		t.Errorf("requests that always succeed at once: got %+v, want safe on day 3 after 2 requests", got[0])
	}
	o.success = 0
	got := account(gens, nil, o, stream(&Config{}, 0, 0))
	if !math.IsInf(got[0].safe, 1) || got[0].requests != 4 {
		t.Errorf("requests that always fail: got %+v, want never safe after 4 requests (one per carrier)", got[0])
	}
}
