package codec

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
)

// earlySegment seals a segment of several stripes and returns its blocks
// by stripe and shard, its layout and the files it holds.
func earlySegment(t *testing.T) ([][][]byte, block.Layout, map[string][]byte) {
	t.Helper()
	a, _ := testKeys(t)
	r := rand.New(rand.NewPCG(5, 6))
	files := map[string][]byte{"app/data.bin": randomBytes(r, 40000), "app/readme.txt": bytes.Repeat([]byte("text "), 3000)}
	in := Input{Name: "app", Entries: []bundle.Entry{memEntry("app/data.bin", files["app/data.bin"], 0o600),
		memEntry("app/readme.txt", files["app/readme.txt"], 0o644)}}
	sealed, p, blocks := encodeAll(t, in, a.Server().Sealer(), fixed(4, 4, 2048))
	if p.Stripes() < 3 {
		t.Fatalf("want several stripes, got %d", p.Stripes())
	}
	return blocks, sealed.Layout(gen1, p, a.Signer()), files
}

// staging is the outcome of StageEarly run on its own goroutine.
type staging struct {
	st  *Staged
	err error
}

func stageEarly(ctx context.Context, asm *Assembler, l block.Layout, dir string) <-chan staging {
	out := make(chan staging, 1)
	go func() {
		st, err := asm.StageEarly(ctx, l, dir, bundle.ExtractOptions{})
		out <- staging{st, err}
	}()
	return out
}

// notYet fails if the staging ended.
func notYet(t *testing.T, c <-chan staging, what string) {
	t.Helper()
	select {
	case s := <-c:
		t.Fatalf("%s: staging ended: %v", what, s.err)
	case <-time.After(20 * time.Millisecond):
	}
}

// TestStageEarlyFollowsStripes: started before any block is added, with
// the stripes arriving last first, each with its parity after it, the
// staging waits for the first stripe and then each next one, ends once
// the segment is complete, and commits the files Extract restores;
// nothing is moved before Commit.
func TestStageEarlyFollowsStripes(t *testing.T) {
	a, _ := testKeys(t)
	blocks, l, files := earlySegment(t)
	asm, _ := NewAssembler(a.Opener(), Options{TempDir: t.TempDir()})
	defer asm.Close()
	dir := t.TempDir()
	done := stageEarly(context.Background(), asm, l, dir)
	for s := len(blocks) - 1; s >= 0; s-- {
		notYet(t, done, "before stripe 0 is complete")
		for _, enc := range blocks[s] {
			if _, err := asm.Add(enc, before); err != nil {
				t.Fatal(err)
			}
		}
	}
	res := <-done
	if res.err != nil {
		t.Fatal(res.err)
	}
	if top, _ := os.ReadDir(dir); len(top) != 1 || !strings.HasPrefix(top[0].Name(), ".lazarus-staging-") {
		t.Fatalf("before Commit the directory holds %v, want only the staging directory", top)
	}
	rep, err := res.st.Commit()
	if err != nil {
		t.Fatal(err)
	}
	want := t.TempDir()
	wantRep, err := asm.Extract(l, want, bundle.ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := readTree(t, dir)
	for name, data := range files {
		if !bytes.Equal(got[name], data) {
			t.Errorf("%s: %d bytes, want %d", name, len(got[name]), len(data))
		}
	}
	if rep.Files != wantRep.Files || rep.Bytes != wantRep.Bytes || len(got) != len(readTree(t, want)) {
		t.Fatalf("committed %+v, Extract %+v", rep, wantRep)
	}
}

// TestStageEarlyGivesUp: a staging ends with an error and leaves nothing
// in the directory when a stripe of its segment is contested (two signed
// versions of a block: the stripe's bytes may change), when its context
// is cancelled, and when the assembler is closed.
func TestStageEarlyGivesUp(t *testing.T) {
	a, _ := testKeys(t)
	blocks, l, _ := earlySegment(t)
	r := rand.New(rand.NewPCG(7, 8))
	forged := forgeAll(t, blocks[:1], func(d []byte) []byte { return a.Signer().Sign("block", d) }, r)
	for _, tc := range []struct {
		name string
		want error
		act  func(asm *Assembler, cancel context.CancelFunc)
	}{
		{"contested", ErrNotFollowed, func(asm *Assembler, _ context.CancelFunc) {
			for _, stripe := range [][][]byte{blocks[0], forged[0], blocks[1]} {
				for _, enc := range stripe {
					asm.Add(enc, before)
				}
			}
		}},
		{"cancelled", context.Canceled, func(asm *Assembler, cancel context.CancelFunc) {
			for _, enc := range blocks[0] {
				asm.Add(enc, before)
			}
			cancel()
		}},
		{"closed", ErrNotFollowed, func(asm *Assembler, _ context.CancelFunc) { asm.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asm, _ := NewAssembler(a.Opener(), Options{TempDir: t.TempDir()})
			defer asm.Close()
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := stageEarly(ctx, asm, l, dir)
			notYet(t, done, "before any block")
			tc.act(asm, cancel)
			res := <-done
			if !errors.Is(res.err, tc.want) || res.st != nil {
				t.Fatalf("got %v, want %v", res.err, tc.want)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Fatalf("left %d entries in the directory", len(left))
			}
		})
	}
}
