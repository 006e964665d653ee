package placement

import (
	"math/rand/v2"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/erasure"
)

// TestPlanWidthMatchesErasure: with 256-block stripes the width-limited
// planner is erasure.Plan.
func TestPlanWidthMatchesErasure(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rhos := []float64{0, 0.1, 0.5, 1, 1.1, 1.5, 2, 3, 0.3333}
	for i := range 20000 {
		length := r.Int64N(1 << uint(r.IntN(40)))
		z := 1 + r.IntN(1<<uint(1+r.IntN(20)))
		rho := rhos[i%len(rhos)]
		want, err := erasure.Plan(length, z, rho)
		got, ok := planWidth(length, z, rho, erasure.MaxShards)
		if (err == nil) != ok || got != want {
			t.Fatalf("planWidth(%d, %d, %v, 256) = %v %v, erasure.Plan = %v %v", length, z, rho, got, ok, want, err)
		}
	}
}

func TestPlanWidth(t *testing.T) {
	tests := []struct {
		length      int64
		z, width    int
		rho         float64
		k, m, shard int
		stripes     int
		impossible  bool
	}{
		// McCown's table 23 with enough pages.
		{length: miB, z: 50 * kiB, width: 256, rho: 1, k: 21, m: 21, shard: 49933, stripes: 1},
		{length: miB, z: 100 * kiB, width: 256, rho: 1, k: 11, m: 11, shard: 95326, stripes: 1},
		{length: miB, z: 150 * kiB, width: 256, rho: 1, k: 7, m: 7, shard: 149797, stripes: 1},
		// Ten pages: k+m ≤ 10, so 21 data shards need 5 stripes of k = 5.
		{length: miB, z: 50 * kiB, width: 10, rho: 1, k: 5, m: 5, shard: 41944, stripes: 5},
		// Three pages at ρ = 1: one data shard per stripe.
		{length: miB, z: 50 * kiB, width: 3, rho: 1, k: 1, m: 1, shard: 49933, stripes: 21},
		// One page: only without parity.
		{length: miB, z: 50 * kiB, width: 1, rho: 1, impossible: true},
		{length: miB, z: 50 * kiB, width: 1, rho: 0, k: 1, m: 0, shard: 49933, stripes: 21},
		// An empty segment is one stripe of one padding byte per shard.
		{length: 0, z: 50 * kiB, width: 7, rho: 2, k: 1, m: 2, shard: 1, stripes: 1},
	}
	for _, tt := range tests {
		p, ok := planWidth(tt.length, tt.z, tt.rho, tt.width)
		if tt.impossible {
			if ok {
				t.Errorf("planWidth(%d, %d, %v, %d) = %v, want impossible", tt.length, tt.z, tt.rho, tt.width, p)
			}
			continue
		}
		if !ok || p.K != tt.k || p.M != tt.m || p.ShardSize != tt.shard || p.Stripes() != tt.stripes {
			t.Errorf("planWidth(%d, %d, %v, %d) = %v (%d stripes) %v, want k=%d m=%d S=%d, %d stripes",
				tt.length, tt.z, tt.rho, tt.width, p, p.Stripes(), ok, tt.k, tt.m, tt.shard, tt.stripes)
		}
	}
}
