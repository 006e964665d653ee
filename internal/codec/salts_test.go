package codec

import (
	"bytes"
	"crypto/rand"
	"fmt"
	mrand "math/rand/v2"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/keys"
)

// junkSaltBlock is a block claiming the site's key id with a random salt:
// checking it costs a key derivation and fails.
func junkSaltBlock(t *testing.T, keyID [8]byte) []byte {
	t.Helper()
	b := &block.Block{Layout: block.Layout{Kind: block.KindData, Code: block.CodeRS8, Cipher: uint8(keys.CipherScrypt),
		Generation: [16]byte{0xEE}, Time: 1, Length: 64, K: 1, M: 1, ShardSize: 64, KeyID: keyID, Name: "app"}, Data: make([]byte, 64)}
	rand.Read(b.Salt[:])
	enc, err := b.Marshal(func([]byte) []byte { return make([]byte, 64) })
	if err != nil {
		t.Fatal(err)
	}
	c, _ := htmlblock.Armor(htmlblock.KindBlock, enc)
	return c
}

// TestSquatterSaltsOrdering: the owner's salt is on 120 pages (one block
// each), captured in the owner's time. A squatter's captures, newer and
// scanned first, carry 65 junk salts: on query variants of the root page
// (one page path) in one case, and all of them on 64 distinct paths in the
// other. Neither uses up the budget before the owner's salt is tried.
func TestSquatterSaltsOrdering(t *testing.T) {
	pass := []byte("correct horse battery staple")
	sealer, err := keys.PassphraseSealer(pass, keys.NewSalt(), &keys.PassphraseOptions{WorkFactor: 10})
	if err != nil {
		t.Fatal(err)
	}
	data := randomBytes(mrand.New(mrand.NewPCG(1, 1)), 2000)
	in := Input{Name: "app", Entries: []bundle.Entry{memEntry("app/data.bin", data, 0o600)}}
	sealed, p, blocks := encodeAll(t, in, sealer, fixed(60, 60, 64))
	l := sealed.Layout(gen1, p, sealer.Signer)
	owner := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	squat := owner.AddDate(1, 0, 0)
	for _, tc := range []struct {
		name string
		urls func(i int) string
	}{
		{"query variants", func(i int) string { return fmt.Sprintf("https://example.org/?p=%d", i) }},
		{"distinct paths", func(i int) string { return fmt.Sprintf("https://example.org/s%d.html", i) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op, _ := keys.PassphraseOpener(pass, nil)
			asm, _ := NewAssembler(op, Options{TempDir: t.TempDir()})
			defer asm.Close()
			junk := make([][]byte, keys.MaxSalts+1)
			for i := range junk {
				junk[i] = junkSaltBlock(t, sealer.Signer.KeyID())
			}
			for round := 0; round < 2; round++ { // each squatter page captured twice
				for i := 0; i < keys.MaxSalts; i++ {
					page := append([]byte("<html><body>for sale"), bytes.Join(junk, nil)...)
					if tc.name == "query variants" {
						page = append([]byte("<html><body>for sale"), junk[i]...)
					}
					asm.AddPage(page, Origin{URL: tc.urls(i), Time: squat.Add(time.Duration(round*100+i) * time.Minute)})
				}
			}
			for i, enc := range blocks[0] {
				c, _ := htmlblock.Armor(htmlblock.KindBlock, enc)
				asm.AddPage(append([]byte("<html><body>"), c...), Origin{URL: fmt.Sprintf("https://example.org/g%d.html", i), Time: owner})
			}
			asm.Settle()
			dir := t.TempDir()
			if _, err := asm.Extract(l, dir, bundle.ExtractOptions{}); err != nil {
				t.Fatal(err)
			}
			if got := readTree(t, dir)["app/data.bin"]; !bytes.Equal(got, data) {
				t.Fatal("wrong data")
			}
		})
	}
}
