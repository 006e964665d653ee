package status

import (
	"time"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// statusTally counts the distinct blocks of every segment version per
// source and combined (index len(sources)), in capture-time order, and
// records the timeline of each count.
type statusTally struct {
	n    int // sources; index n is combined
	segs map[manifest.SegmentKey]*segTally
}

// segTally is one segment version's count.
type segTally struct {
	layout statusLayout
	// shards maps stripe and shard to the sources holding it (bit i for
	// source i).
	shards map[uint32]map[uint16]uint64
	count  []int            // distinct blocks per source and combined
	stripe map[uint32][]int // distinct blocks per stripe, per source and combined
	points [][]TimelinePoint
	dirty  []bool
}

func newStatusTally(sources int) *statusTally {
	return &statusTally{n: sources, segs: map[manifest.SegmentKey]*segTally{}}
}

// seg returns the tally of a segment version, adding it on first use.
func (t *statusTally) seg(k manifest.SegmentKey, l statusLayout) *segTally {
	s := t.segs[k]
	if s == nil {
		s = &segTally{layout: l, shards: map[uint32]map[uint16]uint64{}, count: make([]int, t.n+1),
			stripe: map[uint32][]int{}, points: make([][]TimelinePoint, t.n+1), dirty: make([]bool, t.n+1)}
		t.segs[k] = s
	}
	return s
}

// add counts one capture's blocks from source src at time at.
func (t *statusTally) add(src int, at time.Time, shards []heldShard, layouts map[manifest.SegmentKey]statusLayout) {
	var touched []*segTally
	for _, h := range shards {
		l, ok := layouts[h.seg]
		if !ok || int(h.stripe) >= l.Stripes || int(h.shard) >= l.K+l.M {
			continue
		}
		s := t.seg(h.seg, l)
		if s.add(src, t.n, h.stripe, h.shard) {
			touched = appendOnce(touched, s)
		}
	}
	for _, s := range touched {
		s.mark(at)
	}
}

func appendOnce(ss []*segTally, s *segTally) []*segTally {
	for _, o := range ss {
		if o == s {
			return ss
		}
	}
	return append(ss, s)
}

// add records that src holds a shard; it reports whether anything new
// was learnt.
func (s *segTally) add(src, combined int, stripe uint32, shard uint16) bool {
	m := s.shards[stripe]
	if m == nil {
		m = map[uint16]uint64{}
		s.shards[stripe] = m
		s.stripe[stripe] = make([]int, combined+1)
	}
	bits := m[shard]
	bit := uint64(1) << src
	if bits&bit != 0 {
		return false
	}
	if bits == 0 {
		s.count[combined]++
		s.stripe[stripe][combined]++
		s.dirty[combined] = true
	}
	m[shard] = bits | bit
	s.count[src]++
	s.stripe[stripe][src]++
	s.dirty[src] = true
	return true
}

// mark appends a timeline point for every source whose count changed.
func (s *segTally) mark(at time.Time) {
	for i, d := range s.dirty {
		if !d {
			continue
		}
		s.dirty[i] = false
		p := TimelinePoint{Time: at, Blocks: s.count[i], Weakest: s.weakest(i)}
		if n := len(s.points[i]); n > 0 && s.points[i][n-1].Time.Equal(at) {
			s.points[i][n-1] = p
		} else {
			s.points[i] = append(s.points[i], p)
		}
	}
}

// weakest is the fewest distinct blocks source i holds of any stripe.
func (s *segTally) weakest(i int) int {
	if len(s.stripe) < s.layout.Stripes {
		return 0
	}
	low := -1
	for _, c := range s.stripe {
		if low < 0 || c[i] < low {
			low = c[i]
		}
	}
	return max(low, 0)
}

// have returns, for one stripe, the distinct blocks per source (by
// index) and combined.
func (s *segTally) have(stripe uint32) []int {
	if s == nil || s.stripe[stripe] == nil {
		return nil
	}
	return s.stripe[stripe]
}
