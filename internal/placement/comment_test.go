package placement

import (
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
)

// TestBlockCommentBytes compares the formula with the armor itself (plus
// the newline the inserter adds) at every size around line and base64
// group boundaries.
func TestBlockCommentBytes(t *testing.T) {
	for _, name := range []int{1, 2, 3, 8, 64} {
		for shard := 1; shard < 700; shard++ {
			checkArmorSize(t, name, shard)
		}
		for _, shard := range []int{48 * kiB, 48*kiB + 1, 48*kiB + 2, 64*kiB - 1, miB} {
			checkArmorSize(t, name, shard)
		}
	}
	// A 48 KiB shard with a 3-byte name: 49,362 block bytes, 65,816
	// base64 characters in 866 lines.
	if got, want := BlockCommentBytes(3, 48*kiB), 21+65816+866+3+1; got != want {
		t.Errorf("BlockCommentBytes(3, 48 KiB) = %d, want %d", got, want)
	}
}

func checkArmorSize(t *testing.T, nameLen, shard int) {
	t.Helper()
	payload := make([]byte, blockOverhead+nameLen+shard)
	c, err := htmlblock.Armor(htmlblock.KindBlock, payload)
	if err != nil {
		t.Fatal(err)
	}
	if got := BlockCommentBytes(nameLen, shard); got != len(c)+1 {
		t.Fatalf("BlockCommentBytes(%d, %d) = %d, armor is %d bytes plus a newline", nameLen, shard, got, len(c))
	}
}

func TestCommentBytesManifest(t *testing.T) {
	for n := 1; n < 12000; n += 37 {
		c, err := htmlblock.Armor(htmlblock.KindManifest, make([]byte, n))
		if err != nil {
			t.Fatal(err)
		}
		if got := CommentBytes(htmlblock.KindManifest, n); got != len(c)+1 {
			t.Fatalf("CommentBytes(manifest, %d) = %d, want %d", n, got, len(c)+1)
		}
	}
}
