package contentcoding

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// bombSize is what the bombs inflate to: 8 times the 32 MiB a reader of
// captures reads at most.
const bombSize = 256 << 20

// bomb encodes bombSize zero bytes in codings, streaming them through a
// 1 MiB buffer.
func bomb(tb testing.TB, codings ...string) []byte {
	tb.Helper()
	zeros := make([]byte, 1<<20)
	// Encoding 256 MiB is slow in brotli; the layers after the first
	// shrink an already tiny body.
	first := encodeStream(tb, codings[0], func(w io.Writer) {
		for range bombSize / len(zeros) {
			w.Write(zeros)
		}
	})
	return encode(tb, first, codings[1:]...)
}

// TestBombsAreBounded: for each coding, a body inflating to 256 MiB is
// read to a 32 MiB bound with the live heap far below what it inflates
// to; the encoded sizes and peaks are logged for the closing note.
func TestBombsAreBounded(t *testing.T) {
	for _, codings := range [][]string{{"gzip"}, {"deflate"}, {"br"}, {"zstd"}, {"zstd", "gzip"}} {
		enc := bomb(t, codings...)
		peak := heapPeak()
		r, err := NewReader(bytes.NewReader(enc), codings)
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, io.LimitReader(r, 32<<20))
		heap := peak()
		t.Logf("%v bomb: %d bytes inflating to %d MiB; read %d MiB, peak live heap %d MiB", codings, len(enc), bombSize>>20, n>>20, heap>>20)
		if err != nil || n != 32<<20 {
			t.Fatalf("%v: read %d bytes, %v", codings, n, err)
		}
		if heap > 48<<20 {
			t.Errorf("%v: peak heap %d MiB", codings, heap>>20)
		}
	}
}

// TestZstdWindowOverLimitRefused: a zstd frame asking for a 64 MiB window
// is refused before its window is allocated.
func TestZstdWindowOverLimitRefused(t *testing.T) {
	frame := []byte{0x28, 0xb5, 0x2f, 0xfd, // magic
		0x00,             // no content size, not single segment: a window descriptor follows
		0x00,             // window descriptor, set below
		0x29, 0x00, 0x00, // last block, raw, 5 bytes
		'h', 'e', 'l', 'l', 'o'}
	frame[5] = (26 - 10) << 3 // window log 26: 64 MiB
	peak := heapPeak()
	r, _ := NewReader(bytes.NewReader(frame), []string{"zstd"})
	_, err := io.Copy(io.Discard, r)
	heap := peak()
	if err == nil || !errors.Is(err, zstd.ErrWindowSizeExceeded) {
		t.Fatalf("err %v, want the window refused", err)
	}
	if heap > 16<<20 {
		t.Errorf("peak heap %d MiB refusing a 64 MiB window", heap>>20)
	}
	// The same frame asking for 8 MiB is read.
	frame[5] = (23 - 10) << 3
	r, _ = NewReader(bytes.NewReader(frame), []string{"zstd"})
	if got, err := io.ReadAll(r); err != nil || string(got) != "hello" {
		t.Fatalf("8 MiB window: %q, %v", got, err)
	}
}

// heapPeak samples the live heap until the returned function is called,
// which returns the largest sample.
func heapPeak() func() uint64 {
	runtime.GC()
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var most uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			most = max(most, s[0].Value.Uint64())
			select {
			case <-stop:
				metrics.Read(s)
				done <- max(most, s[0].Value.Uint64())
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 { close(stop); return <-done }
}
