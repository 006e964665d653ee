package codec

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filippo.io/age"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/erasure"
	"github.com/lazarus-preserve/lazarus/internal/keys"
)

// rebuild feeds blocks to a fresh assembler and extracts the segment.
func rebuild(t testing.TB, o *keys.Opener, opts Options, l block.Layout, feed [][]byte) (string, error) {
	t.Helper()
	a, err := NewAssembler(o, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for _, b := range feed {
		if b != nil {
			a.Add(b, Origin{})
		}
	}
	dir := t.TempDir()
	_, err = a.Extract(l, dir, bundle.ExtractOptions{})
	return dir, err
}

// TestRoundTripGrid: every size × parameter set × erasure pattern that
// leaves k blocks per stripe rebuilds the files byte for byte.
func TestRoundTripGrid(t *testing.T) {
	a, _ := testKeys(t)
	r := rand.New(rand.NewPCG(1, 2))
	sizes := []int{0, 1, 4095, 4096, 4097, 64<<10 - 1, 64 << 10, 64<<10 + 1, 3 << 20}
	shapes := []struct{ k, m, shard int }{{1, 0, 1 << 20}, {1, 2, 1 << 20}, {4, 2, 4096}, {10, 10, 8192}, {20, 5, 1024}}
	patterns := []string{"none", "first-m", "last-m", "random-m", "all-parity"}
	for _, size := range sizes {
		data := randomBytes(r, size)
		in := Input{Name: "app", Entries: []bundle.Entry{memEntry("app/data.bin", data, 0o640)}}
		for _, sh := range shapes {
			sealed, p, blocks := encodeAll(t, in, a.Server().Sealer(), fixedFit(sh.k, sh.m, sh.shard))
			l := sealed.Layout(gen1, p, a.Signer())
			for _, pat := range patterns {
				t.Run(fmt.Sprintf("%d/%dx%d/%s", size, p.K, p.M, pat), func(t *testing.T) {
					feed := erase(blocks, p, pat, r)
					dir, err := rebuild(t, a.Opener(), Options{}, l, feed)
					if err != nil {
						t.Fatal(err)
					}
					if got := readTree(t, dir)["app/data.bin"]; !bytes.Equal(got, data) {
						t.Fatalf("content differs: %d vs %d bytes", len(got), len(data))
					}
				})
			}
		}
	}
}

// fixedFit uses k and m but grows the shard so small inputs still fit the
// stripe-count limit; large inputs span several stripes.
func fixedFit(k, m, shard int) func(int64) erasure.Params {
	return func(length int64) erasure.Params { return fixed(k, m, shard)(length) }
}

// erase drops blocks by pattern, never more than m per stripe.
func erase(blocks [][][]byte, p erasure.Params, pattern string, r *rand.Rand) [][]byte {
	var out [][]byte
	for _, stripe := range blocks {
		drop := map[int]bool{}
		for i := 0; i < p.M; i++ {
			switch pattern {
			case "first-m":
				drop[i] = true
			case "last-m", "all-parity":
				drop[p.K+p.M-1-i] = true
			case "random-m":
				drop[r.IntN(p.K+p.M)] = true
			}
		}
		for i, b := range stripe {
			if !drop[i] {
				out = append(out, b)
			}
		}
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// TestRandomTrials: 1,000 seeds of random parameters, erasures and
// corruptions. Recovery succeeds in every trial that keeps at least k good
// blocks in every stripe and fails cleanly (ErrTooFewBlocks) in every
// trial that does not.
func TestRandomTrials(t *testing.T) {
	a, _ := testKeys(t)
	trials := 1000
	if testing.Short() {
		trials = 100
	}
	for seed := 0; seed < trials; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 99))
		data := randomBytes(r, r.IntN(20000))
		k, m := 1+r.IntN(10), r.IntN(7)
		shard := 64 + r.IntN(4096)
		in := Input{Name: "seg", Entries: []bundle.Entry{memEntry("f", data, 0o600)}}
		sealed, p, blocks := encodeAll(t, in, a.Server().Sealer(), fixed(k, m, shard))
		l := sealed.Layout(gen1, p, a.Signer())
		feed, ok := damage(r, blocks, p)
		dir, err := rebuild(t, a.Opener(), Options{}, l, feed)
		switch {
		case ok && err != nil:
			t.Fatalf("seed %d (%v): enough good blocks but: %v", seed, p, err)
		case ok && !bytes.Equal(readTree(t, dir)["f"], data):
			t.Fatalf("seed %d: content differs", seed)
		case !ok && !errors.Is(err, ErrTooFewBlocks):
			t.Fatalf("seed %d (%v): too few good blocks, want ErrTooFewBlocks, got %v", seed, p, err)
		}
	}
}

// damage drops, corrupts, truncates and duplicates blocks at random and
// reports whether every stripe kept k intact blocks.
func damage(r *rand.Rand, blocks [][][]byte, p erasure.Params) ([][]byte, bool) {
	ok := true
	var feed [][]byte
	for _, stripe := range blocks {
		good := 0
		for _, b := range stripe {
			switch r.IntN(6) {
			case 0: // lost
			case 1: // a flipped bit anywhere: an erasure
				c := append([]byte(nil), b...)
				c[r.IntN(len(c))] ^= 1 << r.IntN(8)
				feed = append(feed, c)
			case 2: // truncated capture
				feed = append(feed, b[:r.IntN(len(b))])
			case 3: // seen twice
				feed = append(feed, b, b)
				good++
			default:
				feed = append(feed, b)
				good++
			}
		}
		ok = ok && good >= p.K
	}
	r.Shuffle(len(feed), func(i, j int) { feed[i], feed[j] = feed[j], feed[i] })
	return feed, ok
}

// TestModes: every encryption mode round-trips and records its cipher.
func TestModes(t *testing.T) {
	a, _ := testKeys(t)
	hybridOwner, _, err := keys.Generate(false)
	if err != nil {
		t.Fatal(err)
	}
	salt := keys.NewSalt()
	pass := []byte("correct horse battery staple")
	popts := &keys.PassphraseOptions{WorkFactor: 10}
	ps, err := keys.PassphraseSealer(pass, salt, popts)
	if err != nil {
		t.Fatal(err)
	}
	po, err := keys.PassphraseOpener(pass, popts)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		sealer *keys.Sealer
		opener *keys.Opener
		opts   Options
	}{
		{"hybrid", hybridOwner.Server().Sealer(), hybridOwner.Opener(), Options{}},
		{"x25519", a.Server().Sealer(), a.Opener(), Options{}},
		{"passphrase", ps, po, Options{}},
		{"public-signed", keys.PublicSealer(a.Signer()), a.Opener(), Options{}},
		{"public-unsigned", keys.PublicSealer(nil), &keys.Opener{}, Options{AllowUnsigned: true}},
	}
	data := []byte("<?php echo 'hello';\n")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := Input{Name: "app", Entries: []bundle.Entry{memEntry("index.php", data, 0o644)}}
			sealed, p, blocks := encodeAll(t, in, c.sealer, planned(4096, 1))
			l := sealed.Layout(gen1, p, c.sealer.Signer)
			if keys.Cipher(l.Cipher) != c.sealer.Cipher {
				t.Fatalf("cipher %d recorded, want %d", l.Cipher, c.sealer.Cipher)
			}
			dir, err := rebuild(t, c.opener, c.opts, l, blocks[0])
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(readTree(t, dir)["index.php"], data) {
				t.Fatal("content differs")
			}
		})
	}
}

// TestBadInput: each hostile or unlucky situation gives a clear error or a
// reported erasure; nothing is extracted from a refused segment.
func TestBadInput(t *testing.T) {
	a, b := testKeys(t)
	data := bytes.Repeat([]byte("server side "), 2000)
	in := Input{Name: "app", Entries: []bundle.Entry{memEntry("app.conf", data, 0o600)}}
	sealed, p, blocks := encodeAll(t, in, a.Server().Sealer(), fixed(3, 2, 4096))
	l := sealed.Layout(gen1, p, a.Signer())
	flat := func(bs [][][]byte) (out [][]byte) {
		for _, s := range bs {
			out = append(out, s...)
		}
		return out
	}

	t.Run("stripe short by one", func(t *testing.T) {
		// Keep k-1 blocks of stripe 0: the report says have 2, need 3.
		feed := append([][]byte{}, blocks[0][:2]...)
		for _, s := range blocks[1:] {
			feed = append(feed, s...)
		}
		_, err := rebuild(t, a.Opener(), Options{}, l, feed)
		if !errors.Is(err, ErrTooFewBlocks) || !strings.Contains(err.Error(), "stripe 0 has 2 of the 3 blocks needed") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("two generations mixed", func(t *testing.T) {
		// The same content packed again by generation 2: blocks never mix,
		// so k-1 blocks of each version rebuild neither.
		gen2 := Generation{ID: [16]byte{0xB2}, Time: gen1.Time.Add(3600e9)}
		s2, err := Seal(in, a.Server().Sealer(), SealOptions{TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		defer s2.Close()
		var other [][]byte
		eachBlock(s2, gen2, mustParams(t, s2.Length, 3, 2, 4096), a.Signer(), func(b *block.Block, enc []byte) error {
			if b.Stripe == 0 {
				other = append(other, append([]byte(nil), enc...))
			}
			return nil
		})
		asm, _ := NewAssembler(a.Opener(), Options{})
		defer asm.Close()
		for _, x := range append(blocks[0][:2], other[:2]...) {
			if o, err := asm.Add(x, Origin{}); o != Accepted {
				t.Fatalf("add: %v %v", o, err)
			}
		}
		st := asm.Status()
		if len(st) != 2 || st[0].Complete != 0 || st[1].Complete != 0 {
			t.Fatalf("generations mixed: %+v", st)
		}
	})
	t.Run("flipped bits are erasures", func(t *testing.T) {
		asm, _ := NewAssembler(a.Opener(), Options{})
		defer asm.Close()
		c := append([]byte(nil), blocks[0][0]...)
		c[200] ^= 4
		if o, err := asm.Add(c, Origin{}); o != Rejected || !errors.Is(err, block.ErrBadDigest) {
			t.Fatalf("got %v %v", o, err)
		}
	})
	t.Run("forged generation signed by another key", func(t *testing.T) {
		// Encrypted to A's public recipient (anyone can), signed by B.
		forged := &keys.Sealer{Cipher: keys.CipherX25519, Recipients: []age.Recipient{a.Recipient()}, Signer: b.Signer()}
		_, fp, fb := encodeAll(t, in, forged, fixed(3, 2, 4096))
		fl := sealed.Layout(gen1, fp, b.Signer())
		asm, _ := NewAssembler(a.Opener(), Options{})
		defer asm.Close()
		o, err := asm.Add(fb[0][0], Origin{})
		if o != Rejected || !errors.Is(err, keys.ErrUnknownSigner) {
			t.Fatalf("got %v %v", o, err)
		}
		if _, err := rebuild(t, a.Opener(), Options{}, fl, flat(fb)); !errors.Is(err, ErrTooFewBlocks) {
			t.Fatalf("forged segment rebuilt: %v", err)
		}
	})
	t.Run("unsigned refused unless allowed", func(t *testing.T) {
		_, up, ub := encodeAll(t, in, keys.PublicSealer(nil), fixed(3, 2, 4096))
		asm, _ := NewAssembler(a.Opener(), Options{})
		defer asm.Close()
		if o, err := asm.Add(ub[0][0], Origin{}); o != Rejected || !errors.Is(err, keys.ErrUnsigned) {
			t.Fatalf("got %v %v", o, err)
		}
		_ = up
	})
	t.Run("wrong key", func(t *testing.T) {
		// Signatures check out (A's verify key) but B's identity cannot decrypt.
		o := &keys.Opener{Identities: []age.Identity{b.Identity()}, Verifier: a.Verifier()}
		_, err := rebuild(t, o, Options{}, l, flat(blocks))
		if !errors.Is(err, keys.ErrWrongKey) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("wrong passphrase", func(t *testing.T) {
		salt := keys.NewSalt()
		popts := &keys.PassphraseOptions{WorkFactor: 10}
		ps, _ := keys.PassphraseSealer([]byte("right passphrase"), salt, popts)
		_, _, pb := encodeAll(t, in, ps, fixed(3, 2, 4096))
		po, _ := keys.PassphraseOpener([]byte("wrong passphrase"), popts)
		asm, _ := NewAssembler(po, Options{})
		defer asm.Close()
		if o, err := asm.Add(pb[0][0], Origin{}); o != Rejected || !errors.Is(err, keys.ErrUnknownSigner) {
			t.Fatalf("got %v %v", o, err)
		}
	})
	t.Run("bomb", func(t *testing.T) {
		// The manifest declares less than the payload expands to.
		asm, _ := NewAssembler(a.Opener(), Options{})
		defer asm.Close()
		for _, x := range flat(blocks) {
			asm.Add(x, Origin{})
		}
		dir := t.TempDir()
		_, err := asm.Extract(l, dir, bundle.ExtractOptions{MaxTarSize: 1024})
		if !errors.Is(err, bundle.ErrTooLarge) {
			t.Fatalf("got %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "app.conf")); err == nil {
			t.Fatal("a refused segment left files behind")
		}
	})
	t.Run("unknown version", func(t *testing.T) {
		c := append([]byte(nil), blocks[0][0]...)
		c[4] = 2
		asm, _ := NewAssembler(a.Opener(), Options{})
		defer asm.Close()
		if _, err := asm.Add(c, Origin{}); !errors.Is(err, block.ErrUnknownVersion) || !strings.Contains(err.Error(), "upgrade") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("reserved segment name", func(t *testing.T) {
		if _, err := Seal(Input{Name: "_listing"}, a.Server().Sealer(), SealOptions{}); err == nil {
			t.Fatal("reserved name accepted")
		}
	})
}

func mustParams(t testing.TB, length int64, k, m, shard int) erasure.Params {
	p, err := erasure.NewParams(length, k, m, shard)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEmptySegmentAndZeroByteFile: a segment with no entries and a 0-byte
// file both round-trip.
func TestEmptySegmentAndZeroByteFile(t *testing.T) {
	a, _ := testKeys(t)
	for name, entries := range map[string][]bundle.Entry{
		"empty":     nil,
		"zero-byte": {memEntry("empty.txt", nil, 0o644)},
	} {
		t.Run(name, func(t *testing.T) {
			sealed, p, blocks := encodeAll(t, Input{Name: "s", Entries: entries}, a.Server().Sealer(), planned(4096, 1))
			dir, err := rebuild(t, a.Opener(), Options{}, sealed.Layout(gen1, p, a.Signer()), blocks[0])
			if err != nil {
				t.Fatal(err)
			}
			if got := readTree(t, dir); len(got) != len(entries) {
				t.Fatalf("got %d files", len(got))
			}
			if len(entries) > 0 && (sealed.Files[0].SHA256 == nil || sealed.Files[0].SHA256.String() != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") {
				t.Fatalf("0-byte file hash %v", sealed.Files[0].SHA256)
			}
		})
	}
}

// TestSaveLoad: a saved segment reloads and re-encodes to identical blocks;
// a damaged file is refused.
func TestSaveLoad(t *testing.T) {
	a, _ := testKeys(t)
	in := Input{Name: "app", Entries: []bundle.Entry{memEntry("x", bytes.Repeat([]byte("data"), 5000), 0o644)}}
	sealed, p, blocks := encodeAll(t, in, a.Server().Sealer(), fixed(3, 2, 1024))
	path := filepath.Join(t.TempDir(), "seg")
	if err := sealed.Save(path); err != nil {
		t.Fatal(err)
	}
	again, err := Load(path, sealed.Name, sealed.Kind, sealed.Cipher, sealed.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	err = eachBlock(again, gen1, p, a.Signer(), func(b *block.Block, enc []byte) error {
		if !bytes.Equal(enc, blocks[b.Stripe][b.Shard]) {
			t.Fatalf("block %d/%d differs after reload", b.Stripe, b.Shard)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	raw[10] ^= 1
	os.WriteFile(path, raw, 0o600)
	if _, err := Load(path, sealed.Name, sealed.Kind, sealed.Cipher, sealed.ID); err == nil {
		t.Fatal("damaged segment file accepted")
	}
}
