package recover_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/warc"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// TestOpenerBomb: one cheap capture (a few KiB of gzip) that inflates to
// a 32 MiB page of nothing but Lazarus block openers, each a damaged
// comment. Problems are capped and counted, so the report and memory stay
// small instead of holding 1.6 million problem strings.
func TestOpenerBomb(t *testing.T) {
	dir := t.TempDir()
	body := bytes.Repeat([]byte("<!-- lazarus block 1\n"), (lzrecover.DefaultMaxCapture-200)/21)
	var gz bytes.Buffer
	w := warc.NewWriter(&gz, true)
	resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	if err := w.WriteResponse("https://example.org/", time.Unix(1795258800, 0), []byte(resp)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "bomb.warc.gz"), gz.Bytes(), 0o644)
	out := t.TempDir()
	peak := heapPeak(t)
	rep, err := lzrecover.Run(context.Background(), lzrecover.Options{AllowUnsigned: true, Out: out,
		Sources: []lzrecover.Source{source.WARCSource{Path: dir}}})
	heap := peak()
	if !errors.Is(err, lzrecover.ErrNothingFound) {
		t.Fatalf("got %v", err)
	}
	report, _ := os.Stat(filepath.Join(out, lzrecover.ReportFile))
	t.Logf("%d KiB of gzip → %d MiB page: %d problems listed, %d omitted, report %d KiB, peak heap %d MiB",
		gz.Len()>>10, len(body)>>20, len(rep.Problems), rep.ProblemsOmitted, report.Size()>>10, heap>>20)
	if len(rep.Problems) > lzrecover.MaxProblems || rep.ProblemsOmitted < len(body)/21-lzrecover.MaxProblems || report.Size() > 1<<20 {
		t.Fatalf("problems not bounded: %d listed, %d omitted, report %d bytes", len(rep.Problems), rep.ProblemsOmitted, report.Size())
	}
	// The page itself and its decompression cost a few times its size;
	// 1.6M problem strings cost over a GiB.
	if heap > 256<<20 {
		t.Fatalf("peak heap %d MiB for one 32 MiB page", heap>>20)
	}
}

// heapPeak samples the live heap every few milliseconds until the
// returned function is called, which returns the largest sample.
func heapPeak(t *testing.T) func() uint64 {
	runtime.GC()
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var most uint64
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			most = max(most, s[0].Value.Uint64())
			select {
			case <-stop:
				done <- most
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 { close(stop); return <-done }
}
