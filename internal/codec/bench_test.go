package codec

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/keys"
)

// benchInput is 64 MiB shaped like a server side: half source-like text,
// half incompressible (images, already-compressed archives), in 256 KiB files.
func benchInput() Input {
	r := rand.New(rand.NewPCG(7, 7))
	var entries []bundle.Entry
	text := bytes.Repeat([]byte("function handler($req) { return render('page', $req->params); }\n"), 4096)
	for i := 0; i < 256; i++ {
		data := text[:256<<10]
		if i%2 == 1 {
			data = randomBytes(r, 256<<10)
		}
		entries = append(entries, memEntry(fmt.Sprintf("app/f%03d", i), data, 0o644))
	}
	return Input{Name: "app", Entries: entries}
}

// packPages runs the whole encode pipeline: tar, gzip, encrypt, erasure
// code, sign, armor; it returns the armored comments.
func packPages(b testing.TB, in Input, s *keys.Sealer) [][]byte {
	sealed, err := Seal(in, s, SealOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer sealed.Close()
	p, err := sealed.Params(48<<10, 1)
	if err != nil {
		b.Fatal(err)
	}
	var out [][]byte
	err = eachBlock(sealed, gen1, p, s.Signer, func(_ *block.Block, enc []byte) error {
		c, err := htmlblock.Armor(htmlblock.KindBlock, enc)
		out = append(out, c)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkPack_64MiB: pack+encrypt+encode+armor throughput of input bytes
// (48 KiB blocks, redundancy 1, post-quantum hybrid recipient).
func BenchmarkPack_64MiB(b *testing.B) {
	owner, _, err := keys.Generate(false)
	if err != nil {
		b.Fatal(err)
	}
	in := benchInput()
	b.SetBytes(64 << 20)
	b.ReportAllocs()
	for b.Loop() {
		packPages(b, in, owner.Server().Sealer())
	}
}

// BenchmarkRebuild_64MiB: scan+verify+decode+decrypt+extract throughput of
// input bytes. Every other block is lost, so about half the data shards are
// rebuilt from parity (all data shards present would be the fast path).
func BenchmarkRebuild_64MiB(b *testing.B) {
	owner, _, err := keys.Generate(false)
	if err != nil {
		b.Fatal(err)
	}
	comments := packPages(b, benchInput(), owner.Server().Sealer())
	// Pages of 20 blocks each; every other block dropped (erasures).
	var pages [][]byte
	for i := 0; i < len(comments); i += 20 {
		var kept [][]byte
		for j := i; j < i+20 && j < len(comments); j += 2 {
			kept = append(kept, comments[j])
		}
		page, _ := htmlblock.Insert([]byte("<html><body><p>x</p></body></html>"), kept...)
		pages = append(pages, page)
	}
	b.SetBytes(64 << 20)
	b.ReportAllocs()
	for b.Loop() {
		a, _ := NewAssembler(owner.Opener(), Options{})
		for _, p := range pages {
			a.AddPage(p, Origin{})
		}
		st := a.Status()
		if len(st) != 1 || !st[0].Done() {
			b.Fatalf("not rebuilt: %+v", st)
		}
		if _, err := a.Extract(st[0].Layout, b.TempDir(), bundle.ExtractOptions{}); err != nil {
			b.Fatal(err)
		}
		a.Close()
	}
}

// benchPages is the 64 MiB input as pages of 20 blocks, every other
// block dropped (as BenchmarkRebuild_64MiB).
func benchPages(b *testing.B, s *keys.Sealer) [][]byte {
	comments := packPages(b, benchInput(), s)
	var pages [][]byte
	for i := 0; i < len(comments); i += 20 {
		var kept [][]byte
		for j := i; j < i+20 && j < len(comments); j += 2 {
			kept = append(kept, comments[j])
		}
		page, _ := htmlblock.Insert([]byte("<html><body><p>x</p></body></html>"), kept...)
		pages = append(pages, page)
	}
	return pages
}

// BenchmarkAddPages_64MiB: pages scanned (comments found, decoded,
// hashed, signature-checked) on 1, 2 and 4 workers and added in order,
// stripes rebuilt; throughput of page bytes and "pages/s".
func BenchmarkAddPages_64MiB(b *testing.B) {
	owner, _, err := keys.Generate(false)
	if err != nil {
		b.Fatal(err)
	}
	pages := benchPages(b, owner.Server().Sealer())
	var size int64
	for _, p := range pages {
		size += int64(len(p))
	}
	for _, workers := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				a, _ := NewAssembler(owner.Opener(), Options{TempDir: b.TempDir()})
				in := make(chan Page)
				go func() {
					defer close(in)
					for _, p := range pages {
						in <- Page{Bytes: p}
					}
				}()
				if err := a.AddPages(context.Background(), workers, in, nil); err != nil {
					b.Fatal(err)
				}
				if st := a.Status(); len(st) != 1 || !st[0].Done() {
					b.Fatalf("not rebuilt: %+v", st)
				}
				a.Close()
			}
			b.ReportMetric(float64(len(pages))*float64(b.N)/b.Elapsed().Seconds(), "pages/s")
		})
	}
}

// BenchmarkScan_Page: Scan alone on one page of 10 blocks of 48 KiB.
func BenchmarkScan_Page(b *testing.B) {
	owner, _, err := keys.Generate(false)
	if err != nil {
		b.Fatal(err)
	}
	pages := benchPages(b, owner.Server().Sealer())
	a, _ := NewAssembler(owner.Opener(), Options{})
	defer a.Close()
	b.SetBytes(int64(len(pages[0])))
	b.ReportAllocs()
	for b.Loop() {
		if s := a.Scan(pages[0], Origin{}); len(s.items) != 10 || s.items[0].err != nil {
			b.Fatalf("scan found %d comments", len(s.items))
		}
	}
}
