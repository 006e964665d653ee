package bundle

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

// TestStageOrder writes pieces of random sizes (empty, under, across and
// over a chunk) and checks w gets every byte, in order.
func TestStageOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	data := randomBytes(5, 3*stageChunk*stageBuffers+17)
	var got bytes.Buffer
	s := newStage(&got)
	for rest := data; len(rest) > 0; {
		n := min(len(rest), []int{0, 1, stageChunk - 1, stageChunk, stageChunk + 1, 3*stageChunk + 5}[r.IntN(6)])
		if k, err := s.Write(rest[:n]); k != n || err != nil {
			t.Fatalf("Write(%d bytes) = %d, %v", n, k, err)
		}
		rest = rest[n:]
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), data) {
		t.Fatalf("w got %d bytes, not the %d written in order", got.Len(), len(data))
	}
	if _, err := s.Write([]byte("x")); !errors.Is(err, errStageClosed) {
		t.Errorf("Write after Close: %v, want errStageClosed", err)
	}
}

type failingWriter struct{ n, limit int }

var errFull = errors.New("disk full")

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n+len(p) > w.limit {
		return 0, errFull
	}
	w.n += len(p)
	return len(p), nil
}

// TestStageError checks that w's error comes back from a later Write and
// from Close, and that nothing blocks after it.
func TestStageError(t *testing.T) {
	s := newStage(&failingWriter{limit: stageChunk})
	chunk := make([]byte, stageChunk)
	var werr error
	for i := 0; i < 100 && werr == nil; i++ {
		_, werr = s.Write(chunk)
		if werr == nil {
			time.Sleep(time.Millisecond) // let the goroutine write
		}
	}
	if !errors.Is(werr, errFull) {
		t.Errorf("Write never returned w's error: %v", werr)
	}
	if err := s.Close(); !errors.Is(err, errFull) {
		t.Errorf("Close = %v, want w's error", err)
	}
	if err := s.Close(); !errors.Is(err, errFull) {
		t.Errorf("second Close = %v, want w's error", err)
	}
}

// TestWriteStagedMatchesDirect checks that packing several MiB through the
// stages gives the bytes compressing the whole tar stream in one write
// gives: the chunks the stages hand over do not change the payload.
func TestWriteStagedMatchesDirect(t *testing.T) {
	payload, _ := pack(t, mixedTree(6<<20))
	tarData := unpackTar(t, payload)
	var want bytes.Buffer
	gz, err := gzip.NewWriterLevel(&want, DefaultLevel)
	if err != nil {
		t.Fatal(err)
	}
	gz.Header = gzip.Header{ModTime: time.Unix(0, 0), OS: 255}
	if _, err := gz.Write(tarData); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(payload[headerSize:], want.Bytes()) {
		t.Errorf("staged payload (%d bytes) differs from the tar compressed in one write (%d bytes)", len(payload)-headerSize, want.Len())
	}
}

// TestWriteStageError checks that an error of the payload's writer is
// returned by Write.
func TestWriteStageError(t *testing.T) {
	_, err := Write(&failingWriter{limit: 1 << 10}, mixedTree(2<<20), WriteOptions{})
	if !errors.Is(err, errFull) {
		t.Errorf("Write = %v, want the writer's error", err)
	}
}
