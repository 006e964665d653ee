package codec

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/erasure"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

var (
	keysOnce sync.Once
	ownerA   *keys.Owner
	ownerB   *keys.Owner
)

// testKeys returns two classic owners (fast to use); A is the site owner,
// B is somebody else.
func testKeys(t testing.TB) (*keys.Owner, *keys.Owner) {
	t.Helper()
	keysOnce.Do(func() {
		var err error
		if ownerA, _, err = keys.Generate(true); err != nil {
			panic(err)
		}
		if ownerB, _, err = keys.Generate(true); err != nil {
			panic(err)
		}
	})
	return ownerA, ownerB
}

var gen1 = Generation{ID: manifest.ID{0xA1}, Time: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}

// memEntry is a regular file held in memory.
func memEntry(name string, data []byte, mode os.FileMode) bundle.Entry {
	return bundle.Entry{
		Name: name, Type: bundle.TypeRegular, Mode: mode, Size: int64(len(data)),
		ModTime: time.Unix(1700000000, 123456789),
		Open:    func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
	}
}

// encodeAll seals and encodes one segment, returning its blocks by
// stripe and shard.
func encodeAll(t testing.TB, in Input, s *keys.Sealer, p func(length int64) erasure.Params) (*Sealed, erasure.Params, [][][]byte) {
	t.Helper()
	sealed, err := Seal(in, s, SealOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sealed.Close() })
	params := p(sealed.Length)
	blocks := make([][][]byte, params.Stripes())
	for i := range blocks {
		blocks[i] = make([][]byte, params.Shards())
	}
	err = eachBlock(sealed, gen1, params, s.Signer, func(b *block.Block, enc []byte) error {
		blocks[b.Stripe][b.Shard] = append([]byte(nil), enc...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sealed, params, blocks
}

func planned(shard int, redundancy float64) func(int64) erasure.Params {
	return func(length int64) erasure.Params {
		p, err := erasure.Plan(length, shard, redundancy)
		if err != nil {
			panic(err)
		}
		return p
	}
}

func fixed(k, m, shard int) func(int64) erasure.Params {
	return func(length int64) erasure.Params {
		// Shrink the shard so the segment spans several stripes when it is big.
		p, err := erasure.NewParams(length, k, m, shard)
		if err != nil {
			panic(err)
		}
		return p
	}
}

// readTree returns path → content for every regular file under dir.
func readTree(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || !info.Mode().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// eachBlock calls emit with every block Blocks yields: the shape of the
// tests written before Blocks was an iterator.
func eachBlock(s *Sealed, gen Generation, p erasure.Params, signer *keys.Signer, emit func(b *block.Block, enc []byte) error) error {
	for b, err := range s.Blocks(gen, p, signer) {
		if err != nil {
			return err
		}
		if err := emit(b.Block, b.Raw); err != nil {
			return err
		}
	}
	return nil
}
