package erasure

import (
	"testing"

	"github.com/klauspost/reedsolomon"
)

// resetCodecs empties the shared codec cache.
func resetCodecs() {
	codecs.Lock()
	codecs.entries = nil
	codecs.Unlock()
}

func mustCodec(t *testing.T, k, m int, missing *pattern) reedsolomon.Encoder {
	t.Helper()
	rs, err := sharedCodec(k, m, missing)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestCodecCacheShares(t *testing.T) {
	resetCodecs()
	defer resetCodecs()
	a := mustCodec(t, 4, 2, nil)
	if b := mustCodec(t, 4, 2, nil); a != b {
		t.Errorf("second lookup of (4, 2) built a new codec")
	}
	if b := mustCodec(t, 4, 3, nil); a == b {
		t.Errorf("(4, 3) got the codec of (4, 2)")
	}
	// Fill the cache with other shapes: (4, 2), the least recently used,
	// is evicted and rebuilt.
	for m := 4; m < 4+maxCodecs; m++ {
		mustCodec(t, 4, m, nil)
	}
	if b := mustCodec(t, 4, 2, nil); a == b {
		t.Errorf("(4, 2) survived %d newer shapes", maxCodecs)
	}
	if n := len(codecs.entries); n != maxCodecs {
		t.Errorf("cache holds %d codecs, want %d", n, maxCodecs)
	}
}

func TestCodecCachePatterns(t *testing.T) {
	resetCodecs()
	defer resetCodecs()
	a := mustCodec(t, 40, 40, nil)
	for i := range maxPatterns {
		var p pattern
		p[0] = 1 << i
		if b := mustCodec(t, 40, 40, &p); a != b {
			t.Fatalf("pattern %d of %d replaced the codec", i+1, maxPatterns)
		}
	}
	// A pattern already seen keeps the codec.
	seen := pattern{1}
	if b := mustCodec(t, 40, 40, &seen); a != b {
		t.Errorf("a repeated pattern replaced the codec")
	}
	// One new pattern too many gets a fresh codec.
	fresh := pattern{0, 1}
	if b := mustCodec(t, 40, 40, &fresh); a == b {
		t.Errorf("pattern %d did not replace the codec", maxPatterns+1)
	}
}
