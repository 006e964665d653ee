package bundle

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Payload header layout (format version 1), all integers big-endian:
//
//	offset len field
//	0      4   magic "LZRP"
//	4      1   version = 1
//	5      3   reserved, zero
//	8      8   exact length of the uncompressed tar stream (uint64)
//	16     …   gzip (RFC 1952) of the tar stream, one or more members
const (
	payloadMagic   = "LZRP"
	formatVersion  = 1
	headerSize     = 16
	tarBlockSize   = 512
	tarTrailerSize = 2 * tarBlockSize
)

// appendHeader appends the payload header for a tar stream of tarSize bytes.
func appendHeader(b []byte, tarSize int64) []byte {
	b = append(b, payloadMagic...)
	b = append(b, formatVersion, 0, 0, 0)
	return binary.BigEndian.AppendUint64(b, uint64(tarSize))
}

// parseHeader validates a payload header and returns the declared tar size.
func parseHeader(h *[headerSize]byte) (int64, error) {
	if string(h[:4]) != payloadMagic {
		return 0, tagf(ErrNotPayload, "bad magic %q, want %q", h[:4], payloadMagic)
	}
	if v := h[4]; v != formatVersion {
		if v > formatVersion {
			return 0, tagf(ErrUnknownVersion, "payload format version %d is newer than this program understands (%d)", v, formatVersion)
		}
		return 0, tagf(ErrUnknownVersion, "payload format version %d is not valid", v)
	}
	if h[5] != 0 || h[6] != 0 || h[7] != 0 {
		return 0, tagf(ErrNotPayload, "reserved header bytes are not zero (% x)", h[5:8])
	}
	size := binary.BigEndian.Uint64(h[8:16])
	if size > math.MaxInt64 {
		return 0, tagf(ErrTooLarge, "payload declares a tar stream of %d bytes", size)
	}
	return int64(size), nil
}

// readHeader reads and validates the payload header from r.
func readHeader(r io.Reader) (int64, error) {
	var h [headerSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return 0, tagf(ErrNotPayload, "input is shorter than the %d-byte payload header", headerSize)
		}
		return 0, fmt.Errorf("reading payload header: %w", err)
	}
	return parseHeader(&h)
}
