package erasure

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// This file is an independent, from-scratch implementation of CodeRS8 as
// the package documentation describes it. It shares no code with
// klauspost/reedsolomon: if its parity and decoding agree with the library,
// the documented construction is the truth, and a future reader can
// reimplement decoding from the documentation alone.

// refPoly is the reducing polynomial x^8+x^4+x^3+x^2+1.
const refPoly = 0x11D

// refMulSlow multiplies in GF(2^8) by shift-and-add (Russian peasant).
func refMulSlow(a, b byte) byte {
	var p byte
	for b != 0 {
		if b&1 != 0 {
			p ^= a
		}
		carry := a&0x80 != 0
		a <<= 1
		if carry {
			a ^= refPoly & 0xFF
		}
		b >>= 1
	}
	return p
}

// refMulTable caches refMulSlow for speed; it is built from it alone.
var refMulTable = func() (t [256][256]byte) {
	for a := range 256 {
		for b := range 256 {
			t[a][b] = refMulSlow(byte(a), byte(b))
		}
	}
	return t
}()

func refMul(a, b byte) byte { return refMulTable[a][b] }

// refPow returns a^n with 0^0 = 1.
func refPow(a byte, n int) byte {
	r := byte(1)
	for range n {
		r = refMul(r, a)
	}
	return r
}

// refInv returns the multiplicative inverse of a ≠ 0, a^254.
func refInv(a byte) byte { return refPow(a, 254) }

// refVandermonde returns the rows×cols matrix V[r][c] = r^c.
func refVandermonde(rows, cols int) [][]byte {
	v := make([][]byte, rows)
	for r := range v {
		v[r] = make([]byte, cols)
		for c := range v[r] {
			v[r][c] = refPow(byte(r), c)
		}
	}
	return v
}

// refInvert inverts a square matrix by Gauss-Jordan elimination.
func refInvert(a [][]byte) ([][]byte, error) {
	n := len(a)
	w := make([][]byte, n) // [a | I]
	for i := range w {
		w[i] = make([]byte, 2*n)
		copy(w[i], a[i])
		w[i][n+i] = 1
	}
	for col := range n {
		pivot := col
		for pivot < n && w[pivot][col] == 0 {
			pivot++
		}
		if pivot == n {
			return nil, errors.New("singular matrix")
		}
		w[col], w[pivot] = w[pivot], w[col]
		inv := refInv(w[col][col])
		for j := range w[col] {
			w[col][j] = refMul(w[col][j], inv)
		}
		for r := range n {
			if f := w[r][col]; r != col && f != 0 {
				for j := range w[r] {
					w[r][j] ^= refMul(f, w[col][j])
				}
			}
		}
	}
	out := make([][]byte, n)
	for i := range out {
		out[i] = w[i][n:]
	}
	return out, nil
}

// refMatMul multiplies matrices over GF(2^8).
func refMatMul(a, b [][]byte) [][]byte {
	out := make([][]byte, len(a))
	for i := range a {
		out[i] = make([]byte, len(b[0]))
		for j := range out[i] {
			var s byte
			for x := range b {
				s ^= refMul(a[i][x], b[x][j])
			}
			out[i][j] = s
		}
	}
	return out
}

// refMatrix returns the (k+m)×k systematic encoding matrix
// G = V · (top k×k of V)^-1.
func refMatrix(k, m int) [][]byte {
	v := refVandermonde(k+m, k)
	topInv, err := refInvert(v[:k])
	if err != nil {
		panic(err) // a Vandermonde square with distinct rows is never singular
	}
	return refMatMul(v, topInv)
}

// refCombine returns Σ_c row[c]·shards[c], byte by byte.
func refCombine(row []byte, shards [][]byte) []byte {
	out := make([]byte, len(shards[0]))
	for c, s := range shards {
		for b := range out {
			out[b] ^= refMul(row[c], s[b])
		}
	}
	return out
}

// refEncode returns the m parity shards of k data shards.
func refEncode(k, m int, data [][]byte) [][]byte {
	g := refMatrix(k, m)
	parity := make([][]byte, m)
	for j := range parity {
		parity[j] = refCombine(g[k+j], data)
	}
	return parity
}

// refDecode rebuilds the k data shards from the first k present shards of
// a stripe of k+m shards (nil = missing).
func refDecode(k, m int, shards [][]byte) ([][]byte, error) {
	g := refMatrix(k, m)
	var rows, have [][]byte
	for i, s := range shards {
		if s != nil && len(rows) < k {
			rows, have = append(rows, g[i]), append(have, s)
		}
	}
	if len(rows) < k {
		return nil, ErrTooFewShards
	}
	dec, err := refInvert(rows)
	if err != nil {
		return nil, err
	}
	data := make([][]byte, k)
	for c := range data {
		data[c] = refCombine(dec[c], have)
	}
	return data, nil
}

func TestRefField(t *testing.T) {
	// x · x^7 = x^8 = x^4+x^3+x^2+1.
	if got := refMulSlow(0x80, 0x02); got != 0x1D {
		t.Errorf("0x80·0x02 = %#x, want 0x1d", got)
	}
	// 2 generates the multiplicative group: its order is 255.
	seen := map[byte]bool{}
	for n := range 255 {
		seen[refPow(2, n)] = true
	}
	if len(seen) != 255 || refPow(2, 255) != 1 {
		t.Errorf("2 has order other than 255: %d distinct powers", len(seen))
	}
	for a := 1; a < 256; a++ {
		if refMul(byte(a), refInv(byte(a))) != 1 {
			t.Fatalf("%#x · inverse ≠ 1", a)
		}
	}
}

// TestRefHandComputed checks the reference against parity computed by
// hand for k = 2: V = [[1,0],[1,1],[1,2],…], its top square is its own
// inverse in characteristic 2, so G[2] = [1,2]·top^-1 = [3,2] and
// G[3] = [1,3]·top^-1 = [2,3].
func TestRefHandComputed(t *testing.T) {
	g := refMatrix(2, 2)
	want := [][]byte{{1, 0}, {0, 1}, {3, 2}, {2, 3}}
	for i := range want {
		if !bytes.Equal(g[i], want[i]) {
			t.Errorf("G[%d] = %v, want %v", i, g[i], want[i])
		}
	}
	rs := klauspostParity(t, 2, 2, [][]byte{{1, 0, 5}, {1, 1, 7}})
	// p0 = 3·d0 + 2·d1, p1 = 2·d0 + 3·d1; in GF(2^8) 3·5 = 15, 2·7 = 14,
	// 2·5 = 10 and 3·7 = (x+1)(x²+x+1) = x³+1 = 9.
	want = [][]byte{{3 ^ 2, 2, 15 ^ 14}, {2 ^ 3, 3, 10 ^ 9}}
	for j := range want {
		if !bytes.Equal(rs[j], want[j]) {
			t.Errorf("klauspost parity %d = %v, want %v", j, rs[j], want[j])
		}
	}
}

// klauspostParity returns the parity this package computes for one stripe.
func klauspostParity(t testing.TB, k, m int, data [][]byte) [][]byte {
	t.Helper()
	c, err := NewCoder(Params{K: k, M: m, ShardSize: len(data[0]), Length: 1})
	if err != nil {
		t.Fatal(err)
	}
	shards := append([][]byte{}, data...)
	for range m {
		shards = append(shards, make([]byte, len(data[0])))
	}
	if err := c.EncodeStripe(shards); err != nil {
		t.Fatal(err)
	}
	return shards[k:]
}

func randomShards(rng *rand.Rand, n, size int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = make([]byte, size)
		for b := range out[i] {
			out[i][b] = byte(rng.Uint32())
		}
	}
	return out
}

// TestRefMatchesKlauspost checks that klauspost's parity is the documented
// construction's, for the extreme shapes and random ones.
func TestRefMatchesKlauspost(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := [][2]int{{1, 1}, {1, 255}, {2, 2}, {4, 2}, {10, 5}}
	if !raceEnabled { // the reference is slow under the race detector
		shapes = append(shapes, [][2]int{{255, 1}, {128, 128}, {200, 56}}...)
	}
	for range randomShapes() {
		k := 1 + rng.IntN(MaxShards-1)
		shapes = append(shapes, [2]int{k, 1 + rng.IntN(MaxShards-k)})
	}
	for _, km := range shapes {
		k, m := km[0], km[1]
		data := randomShards(rng, k, 1+rng.IntN(40))
		want := refEncode(k, m, data)
		got := klauspostParity(t, k, m, data)
		for j := range want {
			if !bytes.Equal(got[j], want[j]) {
				t.Fatalf("k=%d m=%d: parity %d differs from the reference construction", k, m, j)
			}
		}
	}
}

// TestRefDecodesKlauspost rebuilds data with the reference decoder from
// random surviving shards of this package's encoding, and this package's
// decoder from the reference encoding.
func TestRefDecodesKlauspost(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 30 {
		k := 1 + rng.IntN(60)
		m := 1 + rng.IntN(min(60, MaxShards-k))
		p := Params{K: k, M: m, ShardSize: 1 + rng.IntN(20), Length: 1}
		data := randomShards(rng, k, p.ShardSize)
		stripe := append(append([][]byte{}, data...), klauspostParity(t, k, m, data)...)
		for _, i := range rng.Perm(k + m)[:m] {
			stripe[i] = nil
		}
		got, err := refDecode(k, m, stripe)
		if err != nil {
			t.Fatal(err)
		}
		for c := range data {
			if !bytes.Equal(got[c], data[c]) {
				t.Fatalf("%v: reference decoder got data shard %d wrong", p, c)
			}
		}
		ref := append(append([][]byte{}, data...), refEncode(k, m, data)...)
		for _, i := range rng.Perm(k + m)[:m] {
			ref[i] = nil
		}
		if err := Reconstruct(p, ref); err != nil {
			t.Fatal(err)
		}
		for c := range data {
			if !bytes.Equal(ref[c], data[c]) {
				t.Fatalf("%v: package decoder got reference-encoded shard %d wrong", p, c)
			}
		}
	}
}

// TestParityPrefix checks that the parity of (k, m) is the first m parity
// shards of (k, m') for m' > m: parity rows do not depend on m.
func TestParityPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, k := range []int{1, 3, 17, 100} {
		data := randomShards(rng, k, 9)
		long := klauspostParity(t, k, MaxShards-k, data)
		for _, m := range []int{1, 2, 7, MaxShards - k - 1} {
			short := klauspostParity(t, k, m, data)
			for j := range short {
				if !bytes.Equal(short[j], long[j]) {
					t.Fatalf("k=%d: parity %d of m=%d differs from m=%d", k, j, m, MaxShards-k)
				}
			}
		}
	}
}

// TestReplicationK1 checks that k = 1 is plain replication: every row of
// the Vandermonde matrix starts with r^0 = 1.
func TestReplicationK1(t *testing.T) {
	data := [][]byte{[]byte("lazarus")}
	for j, s := range klauspostParity(t, 1, 3, data) {
		if !bytes.Equal(s, data[0]) {
			t.Errorf("parity %d = %q, want a copy of the data", j, s)
		}
	}
}

// randomShapes returns the number of random (k, m) shapes
// TestRefMatchesKlauspost tries on top of the fixed ones; the reference is
// slow under the race detector.
func randomShapes() int {
	if raceEnabled {
		return 0
	}
	return 16
}
