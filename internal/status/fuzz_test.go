package status

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/keys"
)

// fuzzStatusPages returns a key and pages holding blocks it signed (and
// one signed by another key).
func fuzzStatusPages(f *testing.F) (*keys.Verifier, [][]byte) {
	f.Helper()
	_, server, err := keys.Generate(true)
	_, other, err2 := keys.Generate(true)
	if err != nil || err2 != nil {
		f.Fatal(err, err2)
	}
	page := func(s *keys.Server, shards ...uint16) []byte {
		out := []byte("<html><body><p>page</p>\n")
		for _, sh := range shards {
			b := &block.Block{Layout: block.Layout{Kind: block.KindData, Code: block.CodeRS8, Generation: [16]byte{1}, Time: 1767225600,
				SegmentID: [32]byte{2}, Length: 64, K: 2, M: 2, ShardSize: 16, KeyID: s.KeyID(), Name: "app"},
				Stripe: uint32(sh / 4), Shard: sh % 4, Data: make([]byte, 16)}
			raw, err := b.Marshal(func(d []byte) []byte { return s.Signer().Sign("block", d) })
			if err != nil {
				f.Fatal(err)
			}
			c, err := htmlblock.Armor(htmlblock.KindBlock, raw)
			if err != nil {
				f.Fatal(err)
			}
			out = append(append(out, c...), '\n')
		}
		return append(out, "</body></html>"...)
	}
	return server.Verifier(), [][]byte{page(server, 0, 1, 5), page(other, 2)}
}

// FuzzStatusScan: whatever an archived capture holds, scanning it never
// panics, every block it counts is in range of its segment, and what it
// caches reads back the same.
func FuzzStatusScan(f *testing.F) {
	v, pages := fuzzStatusPages(f)
	for _, p := range pages {
		f.Add(p)
		f.Add(p[:len(p)/2])
	}
	f.Add([]byte("<!-- lazarus block 1\n-->"))
	if sc := scanStatus(pages[0], v, false); len(sc.Blocks) != 3 || sc.Rejected != 0 {
		f.Fatalf("seed page: %d blocks, %d rejected: %q", len(sc.Blocks), sc.Rejected, sc.Problems)
	}
	if sc := scanStatus(pages[1], v, false); len(sc.Blocks) != 0 || sc.Rejected != 1 {
		f.Fatalf("forged seed page: %d blocks, %d rejected", len(sc.Blocks), sc.Rejected)
	}
	f.Fuzz(func(t *testing.T, page []byte) {
		sc := scanStatus(page, v, false)
		checkScanRanges(t, sc)
		raw, err := json.Marshal(sc)
		if err != nil {
			t.Fatal(err)
		}
		var back statusScan
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatal(err)
		}
		if err := back.check(v); err != nil {
			t.Fatalf("cached scan does not verify: %v", err)
		}
		if !reflect.DeepEqual(back.Blocks, sc.Blocks) || len(back.manifests) != len(sc.manifests) {
			t.Fatalf("cached scan differs")
		}
	})
}

// FuzzStatusCacheEntry: a damaged or planted cache entry never panics
// and is accepted only when every block in it is in range and verifies.
func FuzzStatusCacheEntry(f *testing.F) {
	v, pages := fuzzStatusPages(f)
	raw, _ := json.Marshal(scanStatus(pages[0], v, false))
	f.Add(raw)
	f.Add([]byte(`{"v":3,"layouts":[{"k":1,"stripes":1}],"blocks":[{"seg":0,"stripe":5}]}`))
	f.Add([]byte(`{"v":3,"blocks":["AAAA"]}`))
	f.Add([]byte(`{"v":1,"blocks":[{"seg":-1}]}`))
	f.Fuzz(func(t *testing.T, entry []byte) {
		var sc statusScan
		if json.Unmarshal(entry, &sc) != nil || sc.check(v) != nil {
			return
		}
		checkScanRanges(t, &sc)
		if len(sc.Raw) != len(sc.Blocks) {
			t.Fatalf("%d blocks kept for %d accepted", len(sc.Raw), len(sc.Blocks))
		}
	})
}

// checkScanRanges fails unless every block of a scan has its segment's
// layout and lies in its range.
func checkScanRanges(t *testing.T, sc *statusScan) {
	t.Helper()
	for _, b := range sc.Blocks {
		found := false
		for _, l := range sc.Layouts {
			if l.ID != b.Seg.ID || l.Name != b.Seg.Name {
				continue
			}
			found = true
			if int(b.Stripe) >= l.Stripes || int(b.Shard) >= l.K+l.M {
				t.Fatalf("block %+v out of range of %+v", b, l)
			}
		}
		if !found {
			t.Fatalf("block %+v has no layout", b)
		}
	}
}
