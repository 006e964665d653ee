package codec

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/keys"
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

// TestTinyBlockBomb: one page of blocks of stripes that never complete
// (k = 255, one-byte shards, one block per stripe), accepted as unsigned
// data: memory stays near the page's size, not 40 times it.
func TestTinyBlockBomb(t *testing.T) {
	a, _ := NewAssembler(&keys.Opener{}, Options{AllowUnsigned: true, TempDir: t.TempDir()})
	defer a.Close()
	l := block.Layout{Kind: block.KindData, Code: block.CodeRS8, K: 255, M: 1, ShardSize: 1, Length: 255 * 1_000_000, Name: "x"}
	var page []byte
	n := 0
	for ; len(page) < 16<<20; n++ {
		enc, err := (&block.Block{Layout: l, Stripe: uint32(n), Data: []byte{1}}).Marshal(nil)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := htmlblock.Armor(htmlblock.KindBlock, enc)
		page = append(page, c...)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rep := a.AddPage(page, Origin{URL: "https://example.org/"})
	st := a.Status()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(page)
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d MiB page, %d blocks accepted: heap grew %d MiB; status lists %d of %d short stripes", len(page)>>20, rep.Accepted, grew>>20, len(st[0].Partial), st[0].Short)
	if rep.Accepted != n || grew > 3*int64(len(page)) || len(st[0].Partial) > maxListedShort || st[0].Short != n {
		t.Fatalf("accepted %d of %d, heap grew %d bytes for a %d-byte page", rep.Accepted, n, grew, len(page))
	}
}

// TestSpilledBlocks: with no memory budget every held block is spilled to
// disk; segments still rebuild, and conflicts are still decided.
func TestSpilledBlocks(t *testing.T) {
	defer func(v int64) { heldBytesLimit = v }(heldBytesLimit)
	heldBytesLimit = 0
	a, _ := testKeys(t)
	r := rand.New(rand.NewPCG(5, 6))
	data := randomBytes(r, 30000)
	in := Input{Name: "app", Entries: []bundle.Entry{memEntry("app/data.bin", data, 0o600)}}
	sealed, p, blocks := encodeAll(t, in, a.Server().Sealer(), fixed(4, 4, 2048))
	l := sealed.Layout(gen1, p, a.Signer())
	forged := forgeAll(t, blocks, func(d []byte) []byte { return a.Signer().Sign("block", d) }, r)
	asm, _ := NewAssembler(a.Opener(), Options{TempDir: t.TempDir()})
	defer asm.Close()
	for s := range blocks {
		asm.Add(forged[s][1], after) // one forged block per stripe, held (spilled) first
		for i := range blocks[s] {
			asm.Add(blocks[s][i], before)
		}
	}
	asm.Settle()
	dir := t.TempDir()
	if _, err := asm.Extract(l, dir, bundle.ExtractOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, dir)["app/data.bin"]; !bytes.Equal(got, data) {
		t.Fatal("restored the wrong data")
	}
	if asm.held.bytes != 0 || asm.held.blocks != 0 {
		t.Fatalf("budget not given back: %+v", asm.held)
	}
}

// TestForgedDatesBothWays: with a stolen key and an archive lying about
// dates, one forged block dated before the genuine ones and one after
// defeat both oldest-first and newest-first; the codeword most candidates
// agree with is the genuine one.
func TestForgedDatesBothWays(t *testing.T) {
	a, _ := testKeys(t)
	r := rand.New(rand.NewPCG(7, 8))
	data := randomBytes(r, 6000)
	in := Input{Name: "app", Entries: []bundle.Entry{memEntry("app/data.bin", data, 0o600)}}
	sealed, p, blocks := encodeAll(t, in, a.Server().Sealer(), fixed(4, 4, 2048))
	l := sealed.Layout(gen1, p, a.Signer())
	forged := forgeAll(t, blocks, func(d []byte) []byte { return a.Signer().Sign("block", d) }, r)
	asm, _ := NewAssembler(a.Opener(), Options{TempDir: t.TempDir()})
	defer asm.Close()
	old, late := Origin{Time: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)}, Origin{Time: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)}
	for s := range blocks {
		asm.Add(forged[s][0], old)
		asm.Add(forged[s][1], late)
		for _, b := range blocks[s] {
			asm.Add(b, before)
		}
	}
	asm.Settle()
	dir := t.TempDir()
	if _, err := asm.Extract(l, dir, bundle.ExtractOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, dir)["app/data.bin"]; !bytes.Equal(got, data) {
		t.Fatal("restored the wrong data")
	}
}
