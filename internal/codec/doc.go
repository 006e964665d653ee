// Package codec is the Lazarus pipeline, both directions.
//
// Packing: segment entries → deterministic tar → gzip (package bundle) →
// age encryption (package keys) → a spool file holding the exact
// ciphertext → Reed-Solomon stripes (package erasure) → signed blocks
// (package block), which the caller armors into HTML comments (package
// htmlblock) and places on pages.
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
// which keeps reports and results identical run to run.
//
// Memory stays bounded by one stripe on the way out and by the incomplete
// stripes on the way in; segment ciphertexts live in temporary files.
package codec
