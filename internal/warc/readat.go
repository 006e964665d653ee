package warc

import (
	"fmt"
	"io"
)

// ReadAt reads the single record stored in the byte range [offset,
// offset+length) of ra, as located by a CDX index (Common Crawl, pywb):
// usually one gzip member holding one record. The returned record's Offset
// and Length are the given range; its Body reads from ra.
func ReadAt(ra io.ReaderAt, offset, length int64) (*Record, error) {
	if offset < 0 || length <= 0 {
		return nil, fmt.Errorf("warc: invalid byte range %d+%d", offset, length)
	}
	rec, err := NewReader(io.NewSectionReader(ra, offset, length)).Next()
	if err == io.EOF {
		return nil, fmt.Errorf("%w: %d+%d", ErrNoRecord, offset, length)
	}
	if err != nil {
		return nil, fmt.Errorf("warc: reading record at %d+%d: %w", offset, length, err)
	}
	rec.Offset, rec.Length = offset, length
	return rec, nil
}
