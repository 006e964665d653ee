// Package keys holds Lazarus's keys: the owner and server key files, the
// cipher modes segments are encrypted with, and the Ed25519 signatures on
// every block and manifest.
//
// # Why both encryption and signatures
//
// Segments are encrypted with age (filippo.io/age). Anyone can encrypt to a
// public recipient, so a segment that decrypts proves nothing about who made
// it; every block and manifest is therefore also signed, and recovery only
// trusts what the owner's key (or passphrase) signed. Archives are public and
// permanent ("harvest now, decrypt later"), so the default cipher is age's
// post-quantum hybrid recipient (ML-KEM-768 + X25519).
//
// # Cipher modes
//
// The [Cipher] value is stored in every block header:
//
//	0  public         no encryption (must be asked for by name)
//	1  age-x25519     age X25519 recipient (age1…)
//	2  age-pq-hybrid  age mlkem768x25519 recipient (age1pq1…), the default
//	3  age-scrypt     age scrypt passphrase recipient
//
// # Key files
//
// keygen writes two text files, owner.key (kept offline, needed for
// recovery) and server.key (installed on the server). Both are UTF-8 lines
// separated by "\n" (a trailing "\r" is tolerated). Blank lines and lines
// starting with "#" are ignored; the others are "name: value" with the name
// in [a-z0-9-] and surrounding spaces trimmed. The first field is the file
// type and format version; each other field appears at most once and
// unknown fields are errors:
//
//	owner.key                          server.key
//	lazarus-owner-key: 1               lazarus-server-key: 1
//	created: 2025-01-02T03:04:05Z      created: 2025-01-02T03:04:05Z   (optional, RFC 3339 UTC)
//	age-identity: AGE-SECRET-KEY-PQ-1… age-recipient: age1pq1…
//	signing-seed: <base64>             signing-seed: <base64>
//
// age-identity is an age hybrid (AGE-SECRET-KEY-PQ-1…) or X25519
// (AGE-SECRET-KEY-1…) identity, age-recipient the matching recipient, and
// signing-seed the 32-byte Ed25519 seed in padded standard base64. Both
// files of a pair hold the same seed, so a server rebuilt from owner.key
// keeps signing as the same owner. Values that can be derived (recipient,
// verify key, key id) appear only in comments and are never read back.
//
// # Signatures
//
// A key id is the first 8 bytes of SHA-256("lazarus key id v1" ‖ 0x00 ‖
// pub), where pub is the 32-byte Ed25519 public key; the all-zero key id
// means "unsigned". [Signer.Sign] signs, with plain Ed25519,
//
//	"lazarus v1 " ‖ context ‖ 0x00 ‖ msg
//
// where context is "block" or "manifest".
//
// # Passphrase mode
//
// With a passphrase instead of key files, segments are encrypted with age's
// scrypt recipient and the signing seed is
// Argon2id(passphrase, salt, time=3, memory=64 MiB, threads=4, 32 bytes),
// where salt is 16 random bytes chosen once per site and recorded in every
// block header. A passphrase alone therefore suffices for recovery.
package keys
