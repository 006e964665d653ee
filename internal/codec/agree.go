package codec

import (
	"sort"
)

// maxAgreeTrials bounds the codewords tried per contested stripe.
const maxAgreeTrials = 64

// agreeing picks, for a contested stripe, the k candidates whose codeword
// the most candidates agree with, and returns their shards.
//
// Genuine blocks all lie on one codeword; garbage ones (re-signed with a
// stolen key, whatever dates an archive gives them) each agree with
// little. The search starts from the shards seen in one version only
// (nothing contests them), oldest first, filled up with the oldest version
// of contested shards, then swaps versions of contested shards while that
// raises the agreement, within maxAgreeTrials codewords. Capture dates
// only break ties.
func (s *segment) agreeing(idx uint32, cands []*candidate) ([][]byte, error) {
	versions := map[uint16][]*candidate{}
	for _, c := range cands {
		versions[c.shard] = append(versions[c.shard], c)
	}
	order := make([]uint16, 0, len(versions))
	for sh, vs := range versions {
		sort.SliceStable(vs, func(i, j int) bool { return vs[i].time < vs[j].time })
		order = append(order, sh)
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := versions[order[i]], versions[order[j]]
		if (len(a) == 1) != (len(b) == 1) {
			return len(a) == 1
		}
		if a[0].time != b[0].time {
			return a[0].time < b[0].time
		}
		return order[i] < order[j]
	})
	pick := map[uint16]int{} // chosen shard → version
	for _, sh := range order[:s.params.K] {
		pick[sh] = 0
	}
	best, err := s.agreement(idx, versions, pick)
	if err != nil {
		return nil, err
	}
	for trials := 1; trials < maxAgreeTrials; {
		improved := false
		for _, sh := range order[:s.params.K] {
			for v := range versions[sh] {
				if v == pick[sh] || trials >= maxAgreeTrials {
					continue
				}
				was := pick[sh]
				pick[sh] = v
				score, err := s.agreement(idx, versions, pick)
				if err != nil {
					return nil, err
				}
				trials++
				if score > best {
					best, improved = score, true
				} else {
					pick[sh] = was
				}
			}
		}
		if !improved {
			break
		}
	}
	return s.shardsOf(versions, pick)
}

// shardsOf reads the chosen candidates' data into a stripe's shards.
func (s *segment) shardsOf(versions map[uint16][]*candidate, pick map[uint16]int) ([][]byte, error) {
	shards := make([][]byte, s.params.Shards())
	for sh, v := range pick {
		data, err := s.alt.read(versions[sh][v], s.params.ShardSize)
		if err != nil {
			return nil, err
		}
		shards[sh] = data
	}
	return shards, nil
}

// agreement counts the candidates that agree with the codeword the chosen
// ones make: -1 if they do not even make one (non-zero padding).
func (s *segment) agreement(idx uint32, versions map[uint16][]*candidate, pick map[uint16]int) (int, error) {
	shards, err := s.shardsOf(versions, pick)
	if err != nil {
		return 0, err
	}
	if err := s.coder.ReconstructData(shards); err != nil {
		return -1, nil
	}
	if err := s.coder.CheckPadding(int(idx), shards[:s.params.K]); err != nil {
		return -1, nil
	}
	for i := s.params.K; i < len(shards); i++ {
		shards[i] = make([]byte, s.params.ShardSize)
	}
	if err := s.coder.EncodeStripe(shards); err != nil {
		return 0, err
	}
	n := 0
	for sh, vs := range versions {
		want := sumOf(s.layout.Sum(idx, sh, shards[sh]))
		for _, c := range vs {
			if c.sum == want {
				n++
			}
		}
	}
	return n, nil
}
