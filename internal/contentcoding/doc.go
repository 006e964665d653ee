// Package contentcoding undoes the HTTP content codings (RFC 9110 §8.4)
// of captured page bodies: gzip and x-gzip, deflate (zlib by the
// standard, raw deflate from some servers), br and zstd, alone or stacked
// ("Content-Encoding: gzip, zstd" is undone zstd first). Every reader of
// captures uses it: WARC and WACZ records, Common Crawl records, Wayback
// and Memento replays, mirror files and the live site.
//
// A crawler that asks for "gzip, deflate, zstd" (the Internet Archive's
// since 2026) or "gzip, deflate, br" (browsers) stores what the server
// answers, so an archive may hold a page in any of these codings.
//
// Memory is bounded whatever a body declares: a zstd frame's window is
// refused above MaxZstdWindow (RFC 9659 lets senders use 8 MiB), brotli's
// large-window extension is refused (16 MiB at most), gzip and deflate
// need 32 KiB. Output is streamed: the caller bounds how much of it to
// read, so a bomb costs the bound, not what it would inflate to.
//
// Finding is tolerant and accepting strict, as elsewhere: Decode takes a
// body that already reads as markup as decoded whatever its header says
// (archivers that store the decoded body and keep the header), follows a
// replay's X-Archive-Orig-Content-Encoding when Content-Encoding is
// absent, and recognises gzip and zstd bodies by their magic numbers
// when nothing names a coding (a mirror file, a header lost). A coding it
// cannot undo is an *UnsupportedError naming it, never a silent skip.
package contentcoding
