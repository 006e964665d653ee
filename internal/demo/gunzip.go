package demo

import (
	"bytes"
	"io"

	"github.com/klauspost/compress/gzip"
)

func gunzip(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}
