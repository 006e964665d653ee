package codec

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
)

// forgeAll returns, for every block, a version with a garbage shard under
// the same header, re-signed by the same key (a stolen server.key).
func forgeAll(t *testing.T, blocks [][][]byte, sign func([]byte) []byte, r *rand.Rand) [][][]byte {
	t.Helper()
	out := make([][][]byte, len(blocks))
	for i, stripe := range blocks {
		for _, enc := range stripe {
			b, err := block.Parse(enc)
			if err != nil {
				t.Fatal(err)
			}
			b.Data = randomBytes(r, len(b.Data))
			f, err := b.Marshal(sign)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = append(out[i], f)
		}
	}
	return out
}

var (
	before = Origin{URL: "https://example.org/", Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	after  = Origin{URL: "https://example.org/", Time: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)}
)

// TestConflicts: forged versions of every block, signed by the owner's
// key, arrive before the genuine ones. The segment id decides, preferring
// blocks from older captures; without genuine blocks nothing is opened.
func TestConflicts(t *testing.T) {
	a, _ := testKeys(t)
	r := rand.New(rand.NewPCG(3, 4))
	data := randomBytes(r, 40000)
	in := Input{Name: "app", Entries: []bundle.Entry{memEntry("app/data.bin", data, 0o600)}}
	sealed, p, blocks := encodeAll(t, in, a.Server().Sealer(), fixed(4, 4, 2048))
	l := sealed.Layout(gen1, p, a.Signer())
	forged := forgeAll(t, blocks, func(d []byte) []byte { return a.Signer().Sign("block", d) }, r)
	if p.Stripes() < 3 {
		t.Fatalf("want several stripes, got %d", p.Stripes())
	}
	feed := func(asm *Assembler, bs [][][]byte, from Origin, shards func(i int) bool) (conflicts int) {
		for _, stripe := range bs {
			for i, enc := range stripe {
				if !shards(i) {
					continue
				}
				if _, err := asm.Add(enc, from); errors.Is(err, ErrConflict) {
					conflicts++
				} else if err != nil {
					t.Fatal(err)
				}
			}
		}
		return conflicts
	}
	all := func(int) bool { return true }
	t.Run("genuine older, arriving last", func(t *testing.T) {
		// The forged stripes rebuild first and mismatch the id (their
		// parity does not even fit their data: conflicts already); the
		// genuine blocks join the candidates and win as the older ones.
		asm, _ := NewAssembler(a.Opener(), Options{TempDir: t.TempDir()})
		defer asm.Close()
		n := feed(asm, forged, after, all)
		if st := asm.Status()[0]; !st.Mismatch || st.Done() {
			t.Fatalf("forged segment: %+v", st)
		}
		if n += feed(asm, blocks, before, func(i int) bool { return i%2 == 0 }); n == 0 {
			t.Fatal("no conflict reported")
		}
		dir := t.TempDir()
		if _, err := asm.Extract(l, dir, bundle.ExtractOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := readTree(t, dir)["app/data.bin"]; !bytes.Equal(got, data) {
			t.Fatal("restored the wrong data")
		}
	})
	t.Run("genuine newer", func(t *testing.T) {
		// Captures dated the other way round: oldest-first fails, the
		// newest-first choice matches the id.
		asm, _ := NewAssembler(a.Opener(), Options{TempDir: t.TempDir()})
		defer asm.Close()
		feed(asm, forged, before, all)
		feed(asm, blocks, after, func(i int) bool { return i < 5 })
		asm.Settle()
		if st := asm.Status()[0]; !st.Done() {
			t.Fatalf("not rebuilt: %v", st.Err())
		}
	})
	t.Run("mixed inside stripes", func(t *testing.T) {
		// Odd shards forged, even genuine, interleaved in one pass.
		asm, _ := NewAssembler(a.Opener(), Options{TempDir: t.TempDir()})
		defer asm.Close()
		for s := range blocks {
			for i := range blocks[s] {
				asm.Add(forged[s][i], after)
				asm.Add(blocks[s][i], before)
			}
		}
		asm.Settle()
		if st := asm.Status()[0]; !st.Done() {
			t.Fatalf("not rebuilt: %v", st.Err())
		}
	})
	t.Run("no genuine blocks", func(t *testing.T) {
		asm, _ := NewAssembler(a.Opener(), Options{TempDir: t.TempDir()})
		defer asm.Close()
		feed(asm, forged, after, all)
		feed(asm, forgeAll(t, blocks, func(d []byte) []byte { return a.Signer().Sign("block", d) }, r), before, all)
		asm.Settle()
		st := asm.Status()[0]
		_, err := asm.Extract(l, t.TempDir(), bundle.ExtractOptions{})
		if st.Done() || !errors.Is(err, ErrDigestMismatch) || st.Contested == 0 {
			t.Fatalf("status %+v, extract %v", st, err)
		}
	})
	t.Run("versions per shard bounded", func(t *testing.T) {
		asm, _ := NewAssembler(a.Opener(), Options{TempDir: t.TempDir()})
		defer asm.Close()
		asm.Add(blocks[0][0], before)
		for i := 0; i < 20; i++ {
			f := forgeAll(t, [][][]byte{{blocks[0][0]}}, func(d []byte) []byte { return a.Signer().Sign("block", d) }, r)
			asm.Add(f[0][0], after)
		}
		seg := asm.segs[l]
		if n := len(seg.alt.stripes[0]); n != maxVersions {
			t.Fatalf("kept %d versions of one shard, want %d", n, maxVersions)
		}
	})
}
