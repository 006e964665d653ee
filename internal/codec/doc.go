// Package codec is the Lazarus pipeline, both directions.
//
// Packing, in a straight line: Seal (segment entries → deterministic tar
// → gzip, package bundle → age encryption, package keys → a spool file
// holding the exact ciphertext), then Sealed.Blocks (Reed-Solomon stripes,
// package erasure → signed blocks, package block, each with its HTML
// comment, package htmlblock) for the caller to place on pages, then
// BuildManifest (and, for a listing too large to travel inline, its
// blocks and SignWithListing) and ManifestComment. The codec armors on the
// way out as it scans comments on the way in.
//
// Rebuilding: scanned block payloads → parsed and digest-checked →
// signature-checked against the owner key → grouped by their full layout
// (so generations, segments and parameters never mix) → each stripe
// reconstructed as soon as k good blocks are in, bad or missing blocks
// being erasures → ciphertext verified against the segment id → decrypted
// → safely extracted.
//
// Reading a page is split: Assembler.Scan finds, decodes, hashes and
// signature-checks its comments without touching the assembler, so pages
// can be scanned on every core (ScanOrdered, Assembler.AddPages), and
// Assembler.AddScanned adds the results in the order the pages were read,
// which keeps reports and results identical run to run. A data segment
// can be extracted while its blocks still come (Assembler.StageEarly):
// into a staging directory, kept only if the bytes read match the segment
// id, the rest of the way being the same.
//
// Memory stays bounded by one stripe on the way out and by the incomplete
// stripes on the way in; segment ciphertexts live in temporary files.
package codec
