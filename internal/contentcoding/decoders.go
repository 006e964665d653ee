package contentcoding

import (
	"bufio"
	"io"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
)

// MaxZstdWindow is the largest zstd window accepted: a frame asking for
// more is refused before anything is allocated. RFC 9659 has senders
// keep to 8 MiB; some do not, and a window beyond a capture's size bound
// could not matter.
const MaxZstdWindow = 32 << 20

// opener starts decoding one coding; release, if not nil, returns pooled
// state once the stream has ended.
type opener func(io.Reader) (r io.Reader, release func(), err error)

var openers = map[string]opener{
	"gzip":    openGzip,
	"x-gzip":  openGzip,
	"deflate": openDeflate,
	"br":      openBrotli,
	"zstd":    openZstd,
}

func openGzip(r io.Reader) (io.Reader, func(), error) {
	zr, err := gzip.NewReader(r)
	return zr, nil, err
}

// openDeflate decodes HTTP "deflate", which is zlib (RFC 1950) by the
// standard but raw deflate (RFC 1951) from some servers.
func openDeflate(r io.Reader) (io.Reader, func(), error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(2)
	if len(head) == 2 && head[0]&0x0f == 8 && (uint16(head[0])<<8|uint16(head[1]))%31 == 0 {
		zr, err := zlib.NewReader(br)
		return zr, nil, err
	}
	return flate.NewReader(br), nil, nil
}

var brotliPool sync.Pool

// openBrotli decodes br without the large-window extension (RFC 9841),
// which HTTP's "br" does not allow: the window is 16 MiB at most.
func openBrotli(r io.Reader) (io.Reader, func(), error) {
	br, _ := brotliPool.Get().(*brotli.Reader)
	if br == nil {
		br = brotli.NewReader(r)
	} else {
		br.Reset(r) // always nil
	}
	return br, func() { br.Reset(nil); brotliPool.Put(br) }, nil
}

var zstdPool sync.Pool

// openZstd decodes zstd on the caller's goroutine (concurrency 1: no
// goroutines to leak when a reader is dropped half read), refusing
// windows over MaxZstdWindow.
func openZstd(r io.Reader) (io.Reader, func(), error) {
	d, _ := zstdPool.Get().(*zstd.Decoder)
	if d == nil {
		var err error
		d, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(MaxZstdWindow), zstd.WithDecoderMaxMemory(MaxZstdWindow))
		if err != nil {
			return nil, nil, err
		}
	}
	if err := d.Reset(r); err != nil {
		return nil, nil, err
	}
	return d, func() { d.Reset(nil); zstdPool.Put(d) }, nil
}
