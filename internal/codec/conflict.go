package codec

import (
	"fmt"
	"os"
	"sort"

	"github.com/lazarus-preserve/lazarus/internal/block"
)

// Contested stripes.
//
// Two different blocks for one shard of one segment version, both with a
// good signature, mean the signing key made both: a later holder of
// server.key republishing an old generation's headers with garbage
// shards, say. Rebuilding from whichever k arrived first would give a
// wrong stripe and drop the genuine blocks as redundant. So once a stripe
// is contested, every version of its blocks is kept (on disk) with the
// earliest capture time it was seen in, and the segment id decides: the
// stripe is rebuilt from the oldest candidates first (genuine blocks were
// archived before the key was stolen), then from the newest, and the
// choice that makes the segment hash to its id wins.

// maxVersions bounds the versions kept per shard of a contested stripe;
// beyond it only an older version replaces the newest one kept.
const maxVersions = 4

// candidate is one version of one shard of a contested stripe.
type candidate struct {
	shard uint16
	time  int64 // earliest capture time seen (Unix ns)
	sum   sum
	data  []byte // in memory until stored
	off   int64  // offset of the data in the store's file
}

// altStore holds the candidates of the contested stripes of one segment.
type altStore struct {
	file    *os.File
	size    int64
	stripes map[uint32][]*candidate
	added   int // candidates added since the last resolution attempt
	next    int // try resolving again once added reaches next
}

func (a *altStore) has(idx uint32) bool { return a != nil && a.stripes[idx] != nil }

func (a *altStore) byStripe() map[uint32][]*candidate {
	if a == nil {
		return nil
	}
	return a.stripes
}

func (a *altStore) close() {
	if a != nil && a.file != nil {
		a.file.Close()
		a.file = nil
	}
}

// store writes a candidate's data to the file.
func (a *altStore) store(c *candidate) error {
	if _, err := a.file.WriteAt(c.data, a.size); err != nil {
		return fmt.Errorf("storing a contested block: %w", err)
	}
	c.off, a.size, c.data = a.size, a.size+int64(len(c.data)), nil
	return nil
}

// read returns a candidate's data.
func (a *altStore) read(c *candidate, size int) ([]byte, error) {
	buf := make([]byte, size)
	if _, err := a.file.ReadAt(buf, c.off); err != nil {
		return nil, fmt.Errorf("reading a contested block: %w", err)
	}
	return buf, nil
}

// fromStripe returns the blocks held by an incomplete stripe as
// candidates, and releases them from the memory budget.
func (s *segment) fromStripe(st *stripe) ([]*candidate, error) {
	var out []*candidate
	for i, p := range st.pieces {
		data, err := s.pieceData(p)
		if err != nil {
			return nil, err
		}
		out = append(out, &candidate{shard: i, time: p.time, sum: p.sum, data: data})
	}
	s.release(st)
	st.pieces = nil
	return out, nil
}

// fromDone returns the blocks a rebuilt stripe was made of (and those
// received later that matched) as candidates, read back from the spool.
func (s *segment) fromDone(idx uint32, d *doneStripe) ([]*candidate, error) {
	shards, err := s.codeword(idx)
	if err != nil {
		return nil, err
	}
	var out []*candidate
	for i, t := range d.times {
		if t != 0 {
			out = append(out, &candidate{shard: uint16(i), time: t, sum: d.sums[i], data: shards[i]})
		}
	}
	return out, nil
}

// contest makes stripe idx contested with the given candidates.
func (s *segment) contest(idx uint32, cands []*candidate) error {
	if s.alt == nil {
		f, err := os.CreateTemp(s.tempDir, "lazarus-contested-*")
		if err != nil {
			return fmt.Errorf("segment %q: %w", s.layout.Name, err)
		}
		os.Remove(f.Name())
		s.alt = &altStore{file: f, stripes: map[uint32][]*candidate{}, next: 1}
	}
	for _, c := range cands {
		if err := s.alt.store(c); err != nil {
			return err
		}
	}
	delete(s.stripes, idx)
	s.alt.stripes[idx] = cands
	s.bad, s.rewritten = false, true
	s.sumShards = nil // the stripe's bytes may change
	return nil
}

// addCandidate adds a block to a contested stripe.
func (s *segment) addCandidate(b *block.Block, at int64) (Outcome, error) {
	cands := s.alt.stripes[b.Stripe]
	id := sumOf(b.Digest)
	var same []*candidate
	for _, c := range cands {
		if c.shard != b.Shard {
			continue
		}
		if c.sum == id {
			c.time = min(c.time, at)
			return Redundant, nil
		}
		same = append(same, c)
	}
	c := &candidate{shard: b.Shard, time: at, sum: id, data: append([]byte(nil), b.Data...)}
	if len(same) >= maxVersions {
		newest := same[0]
		for _, o := range same {
			if o.time > newest.time {
				newest = o
			}
		}
		if at >= newest.time {
			return Redundant, nil
		}
		*newest = candidate{shard: c.shard, time: c.time, sum: c.sum, data: c.data}
		c = newest
	} else {
		s.alt.stripes[b.Stripe] = append(cands, c)
	}
	if err := s.alt.store(c); err != nil {
		return Rejected, err
	}
	s.alt.added++
	s.blocks++
	return Accepted, s.maybeResolve(false)
}

// distinctShards counts the shard indices among candidates.
func distinctShards(cands []*candidate) int {
	seen := map[uint16]bool{}
	for _, c := range cands {
		seen[c.shard] = true
	}
	return len(seen)
}

// maybeResolve tries to resolve the contested stripes when every stripe
// has k shards. Each attempt hashes the whole segment, so attempts back
// off: after 1, 2, 4, … new candidates, unless forced (Settle).
func (s *segment) maybeResolve(force bool) error {
	a := s.alt
	if a == nil || s.checked || (!force && a.added < a.next) || len(s.stripes) > 0 {
		return nil
	}
	for _, cands := range a.stripes {
		if distinctShards(cands) < s.params.K {
			return nil
		}
	}
	if uint64(len(s.done)+len(a.stripes)) != s.layout.Stripes() {
		return nil
	}
	a.next, a.added = 2*max(a.next, a.added), 0
	for _, how := range []choice{agreeing, oldestFirst, newestFirst} {
		ok, err := s.tryResolve(how)
		if err != nil || ok {
			return err
		}
	}
	s.bad = true
	return nil
}

// choice is how tryResolve picks the candidates of a contested stripe.
type choice int

const (
	agreeing    choice = iota // the codeword most candidates agree with (see agree.go)
	oldestFirst               // one per shard, oldest capture first, until k
	newestFirst               // one per shard, newest capture first, until k
)

// tryResolve rebuilds every contested stripe from candidates chosen as
// how says and reports whether the segment then matches its id; if so
// the candidates are dropped and the segment is final.
func (s *segment) tryResolve(how choice) (bool, error) {
	if err := s.openSpool(); err != nil {
		return false, err
	}
	for idx, cands := range s.alt.stripes {
		var shards [][]byte
		var err error
		if how == agreeing {
			shards, err = s.agreeing(idx, cands)
		} else {
			shards, err = s.pick(cands, how == oldestFirst)
		}
		if err != nil {
			return false, err
		}
		if err := s.coder.WriteStripe(s.spool, int(idx), shards); err != nil {
			return false, nil // these candidates do not fit together
		}
	}
	ok, err := s.matchesID()
	if err != nil || !ok {
		return false, err
	}
	s.checked, s.bad = true, false
	for idx := range s.alt.stripes {
		s.done[idx] = &doneStripe{}
	}
	s.alt.close()
	s.alt = nil
	return true, nil
}

// pick chooses one candidate per shard, the oldest (or newest) first,
// until k shards are chosen, and reads their data.
func (s *segment) pick(cands []*candidate, oldest bool) ([][]byte, error) {
	order := append([]*candidate(nil), cands...)
	sort.SliceStable(order, func(i, j int) bool {
		if oldest {
			return order[i].time < order[j].time
		}
		return order[i].time > order[j].time
	})
	shards := make([][]byte, s.params.Shards())
	chosen := 0
	for _, c := range order {
		if chosen == s.params.K {
			break
		}
		if shards[c.shard] != nil {
			continue
		}
		data, err := s.alt.read(c, s.params.ShardSize)
		if err != nil {
			return nil, err
		}
		shards[c.shard] = data
		chosen++
	}
	return shards, nil
}
