// Package block encodes and parses Lazarus blocks, the unit that travels in
// one HTML comment: one shard of one Reed-Solomon stripe of one segment,
// with a self-describing header, a SHA-256 digest and an Ed25519 signature.
//
// Every parameter that changes the parity (k, m, shard size, exact
// ciphertext length, code variant) is in every header, so any single block
// says what it belongs to even if the manifest is lost. The byte layout is
// normative and specified in docs/FORMAT.md §4.
package block
