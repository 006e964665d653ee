package verify_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/verify"
)

// runVerify runs Verify with o, for at most a minute.
func runVerify(t *testing.T, o verify.Options) (*verify.Report, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return verify.Run(ctx, o)
}

// shard names one block: segment, stripe, shard.
type shard struct {
	seg           string
	stripe, shard int
}

// shardsOf lists the blocks on a page, and each segment's k.
func shardsOf(t *testing.T, page []byte, k map[string]int) []shard {
	t.Helper()
	var out []shard
	for f := range htmlblock.All(page) {
		if f.Err != nil || f.Kind != htmlblock.KindBlock {
			continue
		}
		b, err := block.Parse(f.Payload)
		if err != nil {
			t.Fatal(err)
		}
		k[b.Name] = int(b.K)
		out = append(out, shard{b.Name, int(b.Stripe), int(b.Shard)})
	}
	return out
}

// removeComments rewrites the pages of the site directory that keep
// does not name without the Lazarus comments drop says to remove (given
// the comment's kind and, for blocks, the segment name), and returns how
// many it removed.
func removeComments(t *testing.T, site string, keep map[string]bool, drop func(kind htmlblock.Kind, segment string) bool) int {
	t.Helper()
	all, _ := filepath.Glob(filepath.Join(site, "*.html"))
	var pages []string
	for _, p := range all {
		if !keep[filepath.Base(p)] {
			pages = append(pages, p)
		}
	}
	removed := 0
	for _, p := range pages {
		page, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var out []byte
		last := 0
		for f := range htmlblock.All(page) {
			name := ""
			if f.Err == nil && f.Kind == htmlblock.KindBlock {
				b, err := block.Parse(f.Payload)
				if err != nil {
					t.Fatal(err)
				}
				name = b.Name
			}
			if f.Err == nil && drop(f.Kind, name) {
				out = append(out, page[last:f.Offset]...)
				last = f.End
				removed++
			}
		}
		out = append(out, page[last:]...)
		if err := os.WriteFile(p, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return removed
}
