package erasure

import (
	"errors"
	"strings"
	"testing"
)

func TestEncodeStripeShapes(t *testing.T) {
	c, err := NewCoder(Params{K: 2, M: 1, ShardSize: 4, Length: 8})
	if err != nil {
		t.Fatal(err)
	}
	// Too few entries: ErrShardCount.
	if err := c.EncodeStripe(make([][]byte, 2)); !errors.Is(err, ErrShardCount) {
		t.Errorf("2 shards: got %v, want ErrShardCount", err)
	}
	// One shard of the wrong size: an error naming it.
	shards := [][]byte{make([]byte, 4), make([]byte, 3), make([]byte, 4)}
	if err := c.EncodeStripe(shards); err == nil || !strings.Contains(err.Error(), "shard 1 has 3 bytes, want 4") {
		t.Errorf("short shard: got %v", err)
	}
}
