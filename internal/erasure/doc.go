// Package erasure cuts a segment's ciphertext into Reed-Solomon stripes and
// rebuilds it from any K good shards of each stripe.
//
// A segment of exactly Length bytes is split into Stripes() stripes. Stripe
// i holds bytes [i·K·S, (i+1)·K·S) of the segment as K data shards of S
// (ShardSize) bytes, data shard j holding the S bytes at j·S within the
// stripe; the last stripe is zero-padded past Length, and a zero-length
// segment has one stripe of padding. Each stripe also has M parity shards,
// and every stripe of a segment has the same K, M and S (see Params and
// Plan). Each shard later becomes one block carried in one web page.
//
// The code, CodeRS8, is systematic Reed-Solomon over GF(2^8) exactly as
// github.com/klauspost/reedsolomon builds it with its default options, and
// it must never change, because archived blocks outlive this code:
//
//   - GF(2^8) is GF(2)[x] modulo x^8+x^4+x^3+x^2+1 (0x11D); addition is XOR.
//   - V is the (K+M)×K Vandermonde matrix V[r][c] = r^c, with r taken as a
//     field element (the byte r) and 0^0 = 1.
//   - The encoding matrix is G = V · (top K×K square of V)^-1, whose top K
//     rows are the identity, so data shards are stored unchanged.
//   - Parity shard j of a stripe is, byte by byte,
//     p_j[b] = Σ_c G[K+j][c] · d_c[b] over the K data shards d_c.
//   - Row r of G depends only on r and K, not on M, so the parity shards of
//     (K, M) are the first M parity shards of (K, M') for any M' > M.
//
// Any K of the K+M shards determine the data: take the K rows of G that
// belong to the surviving shards, invert that K×K matrix, and multiply. The
// tests pin this construction with golden vectors and an independent
// from-scratch encoder and decoder.
//
// Reed-Solomon erasure decoding cannot tell a bad shard from a good one:
// callers check each block's hash and pass a block that fails as missing.
package erasure
