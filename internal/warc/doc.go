// Package warc reads and writes WARC files (ISO 28500, WARC/1.0 and
// WARC/1.1), plain or gzip-compressed, and WACZ packages of them.
//
// # Reading
//
// NewReader detects gzip from the first two bytes (1f 8b) and then reads
// any sequence of gzip members: one per record (the usual .warc.gz), one
// for the whole file, or anything between. Next returns records one at a
// time; a record's Body yields exactly Content-Length bytes and is
// discarded, with the separator, by the following Next. Memory is bounded:
// header lines by MaxLineSize (64 KiB), header blocks by MaxHeaderSize
// (1 MiB); bodies are streamed.
//
// The reader is tolerant in finding records and strict in accepting them.
// A record starts at a line that is exactly "WARC/" digits "." digits
// (trailing blanks allowed) at a line start; lines may end in CRLF or LF.
// After a body the reader consumes up to four CR or LF bytes as the
// separator (CRLF CRLF by the standard; anything else is reported), then
// skips any bytes up to the next version line, reporting them as junk.
// This resynchronises after Content-Length values that are off by a few
// bytes, missing separators and garbage between records. A record is
// accepted only if every header line is "Name: value" (continuation lines
// starting with a blank are joined with one space), Content-Length is a
// decimal number and WARC-Type is present; otherwise it is skipped,
// reported, and the scan resumes after the offending header line (or at a
// version line met inside the header, which then starts the next record). A missing or
// unparsable WARC-Date is reported but the record kept with a zero Date.
// Angle brackets around WARC-Target-URI (old wget) are removed silently.
// In gzip input, garbage between members is skipped to the next gzip magic
// (1f 8b 08) and a damaged member is reported and skipped; if the input
// is an io.Seeker the scan for the next member restarts one byte after the
// damaged member's start (at most 64 MiB reread in total), since a corrupt
// deflate stream may swallow the members after it.
//
// NewReaderAt reads a file the same way, record for record and problem for
// problem, but inflates its gzip members ahead on several goroutines: the
// file is split into chunks, a worker inflates the members starting in
// each (a candidate start is a gzip magic with valid flags), and the
// reader takes a worker's output only for a member starting exactly where
// the previous one ended and verified by its CRC-32 and ISIZE; anything
// else (garbage, damage, a member too large to hold) it inflates itself.
// A bounded window of chunks is in flight, so memory does not grow with
// the file; Close stops the workers. Walk uses it for .warc.gz files.
//
// Problems are non-fatal defects, listed by Reader.Problems with their
// decompressed offsets. A record whose body runs past the end of the input
// (or of its gzip member, when that member is damaged) is returned with
// the available bytes; reading its Body then ends in ErrTruncated.
//
// # Offsets
//
// Record.Offset and Record.Length give the record's byte range in the file
// as stored. For plain files this is the range from the version line
// through the separator. For gzip files it is the range of the gzip
// members holding the record, defined only when no other record shares
// those members; such a range can be read back with ReadAt, as Common
// Crawl and CDX indexes do.
//
// # HTTP payloads
//
// Record.HTTPResponse parses the HTTP/1.x response in a response record
// (Content-Type application/http) with net/http, de-chunks it and undoes
// its content codings with package contentcoding (gzip, x-gzip, deflate,
// br, zstd, stacked); a coding nobody can undo is returned undecoded with
// an error wrapping ErrUnsupportedEncoding that names it.
//
// # Writing
//
// Writer writes WARC/1.0 records, each its own gzip member if asked, with
// Content-Length, WARC-Block-Digest and (for HTTP responses)
// WARC-Payload-Digest as "sha1:" plus the RFC 4648 base32 SHA-1, a random
// "<urn:uuid:…>" WARC-Record-ID and a whole-second UTC WARC-Date when
// absent. Records end in CRLF CRLF.
//
// # Files
//
// OpenWACZ lists and opens the archive/*.warc and archive/*.warc.gz files
// of a WACZ; Walk visits every record of the .warc, .warc.gz and .wacz
// files at a path, naming records inside a WACZ "file.wacz#archive/x.warc.gz".
package warc
