package erasure

import (
	"fmt"
	"io"

	"github.com/klauspost/reedsolomon"
)

// stripeMemory bounds what Encode holds at once. A stripe whose K+M
// shards fit is encoded in one buffer; a wider one (256 shards of 1 MiB
// are 256 MiB) is encoded in passes (see encodeWide). A variable so tests
// can force the passes on small stripes.
var stripeMemory = 32 << 20

// wide reports whether c's stripes are encoded in passes.
func (c *Coder) wide() bool {
	return int64(c.p.Shards())*int64(c.p.ShardSize) > int64(stripeMemory)
}

// encodeWide encodes like Encode in memory bounded by stripeMemory plus
// one shard, whatever K, M and ShardSize: each data shard is read and
// emitted alone, and the parity shards are computed a group at a time
// from the matrix rows that make them (the same matrix as the shared
// codec's: the same parity bytes), column slice by column slice of the
// data shards, so that each group costs one more read of the stripe.
func (c *Coder) encodeWide(src io.ReaderAt, emit EmitFunc) error {
	k, m, z := c.p.K, c.p.M, c.p.ShardSize
	half := stripeMemory / 2
	group := max(1, min(m, half/z))              // parity shards per pass
	col := min(z, max(64, half/(k+group)/64*64)) // bytes of each shard per column slice
	encs, err := c.groupCodecs(group)
	if err != nil {
		return err
	}
	shard := make([]byte, z)
	cols := make([]byte, (k+group)*col)
	parity := make([]byte, group*z)
	for i := range c.p.Stripes() {
		base := int64(i) * c.p.StripeSize()
		for j := range k {
			if err := c.readData(src, shard, base+int64(j)*int64(z)); err != nil {
				return fmt.Errorf("reading stripe %d: %w", i, err)
			}
			if err := emit(i, j, shard); err != nil {
				return fmt.Errorf("emitting stripe %d shard %d: %w", i, j, err)
			}
		}
		for g, enc := range encs {
			rows := min(group, m-g*group)
			if err := c.parityGroup(src, enc, base, rows, cols, col, parity); err != nil {
				return fmt.Errorf("encoding stripe %d: %w", i, err)
			}
			for r := range rows {
				if err := emit(i, k+g*group+r, parity[r*z:(r+1)*z]); err != nil {
					return fmt.Errorf("emitting stripe %d shard %d: %w", i, k+g*group+r, err)
				}
			}
		}
	}
	return nil
}

// parityGroup computes rows parity shards into parity (ShardSize bytes
// each) with enc, reading the stripe at base col bytes of each data
// shard at a time into cols.
func (c *Coder) parityGroup(src io.ReaderAt, enc reedsolomon.Encoder, base int64, rows int, cols []byte, col int, parity []byte) error {
	k, z := c.p.K, c.p.ShardSize
	shards := make([][]byte, k+rows)
	for a := 0; a < z; a += col {
		w := min(col, z-a)
		for j := range k {
			shards[j] = cols[j*col : j*col+w]
			if err := c.readData(src, shards[j], base+int64(j)*int64(z)+int64(a)); err != nil {
				return err
			}
		}
		for r := range rows {
			shards[k+r] = parity[r*z+a : r*z+a+w]
		}
		if err := enc.Encode(shards); err != nil {
			return err
		}
	}
	return nil
}

// readData fills buf with the segment's bytes at off, zeros past Length.
func (c *Coder) readData(src io.ReaderAt, buf []byte, off int64) error {
	n := int(min(int64(len(buf)), max(0, c.p.Length-off)))
	if err := readFull(src, buf[:n], off); err != nil {
		return fmt.Errorf("at offset %d: %w", off, err)
	}
	clear(buf[n:])
	return nil
}

// groupCodecs returns codecs for the parity shards in groups of group:
// each computes its group's shards as the shared codec does, from its
// rows of the shared codec's parity matrix.
func (c *Coder) groupCodecs(group int) ([]reedsolomon.Encoder, error) {
	if c.p.M == 0 {
		return nil, nil
	}
	matrix, err := c.parityMatrix()
	if err != nil {
		return nil, err
	}
	var out []reedsolomon.Encoder
	for g := 0; g < c.p.M; g += group {
		rows := matrix[g:min(g+group, c.p.M)]
		enc, err := reedsolomon.New(c.p.K, len(rows), reedsolomon.WithCustomMatrix(rows))
		if err != nil {
			return nil, fmt.Errorf("creating rs8 codec for parity shards %d..%d: %w", g, g+len(rows)-1, err)
		}
		out = append(out, enc)
	}
	return out, nil
}

// parityMatrix returns the M×K matrix the shared codec makes parity
// with, read off by encoding the K unit vectors: data shard j holding a 1
// at byte j and zeros elsewhere makes parity shard r hold row r's
// coefficient j at byte j.
func (c *Coder) parityMatrix() ([][]byte, error) {
	k, m := c.p.K, c.p.M
	rs, err := sharedCodec(k, m, nil)
	if err != nil {
		return nil, err
	}
	shards := make([][]byte, k+m)
	for i := range shards {
		shards[i] = make([]byte, k)
		if i < k {
			shards[i][i] = 1
		}
	}
	if err := rs.Encode(shards); err != nil {
		return nil, err
	}
	return shards[k:], nil
}
