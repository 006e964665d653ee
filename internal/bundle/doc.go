// Package bundle packs a segment of a site's server side (a directory tree
// plus saved command outputs) into a deterministic compressed payload, and
// extracts payloads safely, treating them as hostile input.
//
// # Payload format, version 1
//
// All integers are big-endian:
//
//	offset len field
//	0      4   magic "LZRP"
//	4      1   version = 1
//	5      3   reserved, zero (readers reject non-zero)
//	8      8   tar size: exact length in bytes of the uncompressed tar stream
//	16     …   gzip (RFC 1952) of the tar stream, one or more members
//
// The tar stream is POSIX pax format as written by Go's archive/tar: one
// entry per directory, regular file or symbolic link, sorted by tar name in
// byte order; names are relative and slash-separated, directories end in
// "/"; Uid and Gid are 0, Uname and Gname the names of the entry's owner
// and group where known (else empty); ModTime has full precision
// (pax records carry sub-second times); access and change times are
// absent; Mode holds the permission bits plus setuid (04000), setgid
// (02000) and sticky (01000); symbolic links are TypeSymlink with the
// target verbatim. The stream ends with two zero blocks. The gzip header
// has no name, ModTime zero and OS byte 255.
//
// The same entries (names, types, modes, modification times, link targets,
// contents) always produce the same tar stream; the tar size is computed
// from the headers before any content is read.
//
// # Extraction
//
// Extract decompresses at most the declared tar size, extracts into a
// staging directory inside the target directory and moves the result into
// place only after the whole payload has been read and verified. Entry
// names must be clean relative paths (no "..", no absolute or drive
// paths, no backslashes or NUL bytes); nothing is ever written below a
// symbolic link, whether it came from the payload or already existed.
// Every directory of the staging tree is resolved once: names are
// created relative to an open handle on their parent (openat with
// O_NOFOLLOW), so a restored file costs its create, its writes, a mode
// and a time change, and a close. Regular files are written by a few
// goroutines while the tar stream is read; the result and the error do
// not depend on their number. Extract is Stage (everything up to the
// move, left in the staging directory) then Staged.Commit, for a caller
// that extracts before it knows the payload is wanted.
package bundle
