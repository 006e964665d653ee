package recover_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// mirrorAt writes pages into a fresh directory with every file's mtime
// (the capture time a DirSource reports) set to at.
func mirrorAt(t *testing.T, pages map[string][]byte, at time.Time) string {
	t.Helper()
	dir := writePages(t, pages)
	for name := range pages {
		os.Chtimes(filepath.Join(dir, name), at, at)
	}
	return dir
}

// TestSquatterSaltsDoNotLockOut: in passphrase mode, a squatter's root
// page (captured after the owner's) carries 64 blocks, each with its own
// random salt. They must not use up the verifier's budget of salts before
// the site's own salt is tried: recovery still rebuilds everything.
func TestSquatterSaltsDoNotLockOut(t *testing.T) {
	pass := []byte("correct horse battery staple")
	salt := keys.NewSalt()
	sealer, err := keys.PassphraseSealer(pass, salt, &keys.PassphraseOptions{WorkFactor: 10})
	if err != nil {
		t.Fatal(err)
	}
	owner := crafted{gen: craftGen}.make(t, sealer,
		codec.Input{Name: "app", Entries: []bundle.Entry{dirEntry("app"), fileEntry("app/config.php", "<?php $db = 'x';\n")}})
	var junk [][]byte
	for i := 0; i < keys.MaxSalts; i++ {
		b := &block.Block{Layout: block.Layout{Kind: block.KindData, Code: block.CodeRS8, Cipher: uint8(keys.CipherScrypt),
			Generation: [16]byte{0xEE}, Time: time.Now().Unix(), Length: 64, K: 1, M: 1, ShardSize: 64,
			KeyID: sealer.Signer.KeyID(), Name: "app"}, Data: make([]byte, 64)}
		rand.Read(b.Salt[:])
		rand.Read(b.Data)
		enc, err := b.Marshal(func(d []byte) []byte { return make([]byte, 64) })
		if err != nil {
			t.Fatal(err)
		}
		c, _ := htmlblock.Armor(htmlblock.KindBlock, enc)
		junk = append(junk, c)
	}
	squatter := map[string][]byte{"index.html": page(t, "domain for sale", junk...)}
	ownerEra := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	start := time.Now()
	out := t.TempDir()
	rep, err := lzrecover.Run(context.Background(), lzrecover.Options{Passphrase: pass, Out: out, SiteURL: "https://example.org/",
		Sources: []lzrecover.Source{
			source.DirSource{Dir: mirrorAt(t, squatter, ownerEra.AddDate(1, 0, 0))}, // newer: fetched first
			source.DirSource{Dir: mirrorAt(t, owner, ownerEra)},
		}})
	if err != nil {
		t.Fatalf("%v\n%s", err, strings.Join(rep.Problems, "\n"))
	}
	if b, _ := os.ReadFile(filepath.Join(out, "app/config.php")); string(b) != "<?php $db = 'x';\n" {
		t.Fatalf("config.php = %q", b)
	}
	t.Logf("recovered in %v beside %d junk salts; problems: %d listed", time.Since(start).Round(time.Millisecond), len(junk), len(rep.Problems))
}

// TestStolenKeyCannotEraseThePast: after the server key is stolen, the
// thief republishes the old generation's blocks (same headers, re-signed)
// with garbage shards, in captures newer than the genuine ones, which
// recovery fetches first. Asking for the old generation still rebuilds it
// from the genuine blocks, and the report says blocks conflicted.
func TestStolenKeyCannotEraseThePast(t *testing.T) {
	owner, server, err := keys.Generate(true)
	if err != nil {
		t.Fatal(err)
	}
	noise := make([]byte, 100000) // four stripes: the forged ones are not all caught by the last stripe's padding
	rand.Read(noise)
	input := codec.Input{Name: "app", Entries: []bundle.Entry{dirEntry("app"), fileEntry("app/data.bin", string(noise))}}
	// The thief's pages: the same block headers (same generation, segment
	// id and layout), garbage shards, re-signed with the stolen key.
	forgedComments := map[string][][]byte{}
	forge := func(b *block.Block, enc []byte) []byte {
		f := *b
		f.Data = make([]byte, len(b.Data))
		rand.Read(f.Data)
		fenc, err := f.Marshal(func(d []byte) []byte { return server.Signer().Sign("block", d) })
		if err != nil {
			t.Fatal(err)
		}
		c, _ := htmlblock.Armor(htmlblock.KindBlock, fenc)
		name := fmt.Sprintf("p%d.html", int(b.Shard)%8)
		forgedComments[name] = append(forgedComments[name], c)
		return enc
	}
	genuine := crafted{gen: craftGen, tamper: forge}.make(t, server.Sealer(), input)
	forged := map[string][]byte{}
	for name, cs := range forgedComments {
		if name != "p0.html" && name != "p1.html" { // some pages kept their genuine blocks
			forged[name] = page(t, name, cs...)
		}
	}
	era := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	for _, oldestFirst := range []bool{false, true} {
		srcs := []lzrecover.Source{
			source.DirSource{Dir: mirrorAt(t, forged, era.AddDate(0, 6, 0))},
			source.DirSource{Dir: mirrorAt(t, genuine, era)},
		}
		if oldestFirst {
			srcs[0], srcs[1] = srcs[1], srcs[0]
		}
		out := t.TempDir()
		rep, err := lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: owner.Marshal(), Out: out,
			Generation: manifest.ID(craftGen.ID).String(), Sources: srcs})
		if err != nil {
			t.Fatalf("oldest first %v: %v %+v\n%s", oldestFirst, err, rep.Segments, strings.Join(rep.Problems[:min(5, len(rep.Problems))], "\n"))
		}
		if b, _ := os.ReadFile(filepath.Join(out, "app/data.bin")); string(b) != string(noise) {
			t.Fatalf("oldest first %v: data.bin differs (%d bytes)", oldestFirst, len(b))
		}
		// (Given first, the genuine source completes the recovery alone.)
		if !oldestFirst && !strings.Contains(strings.Join(rep.Problems, "\n"), "both signed by the owner's key") {
			t.Errorf("oldest first %v: no conflict reported: %q", oldestFirst, rep.Problems)
		}
	}
}
