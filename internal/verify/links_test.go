package verify_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/verify"
)

// TestVerifyCrawlKeepsLinksBounded: pages full of unique links do not
// make the crawl keep them all: the links kept are bounded by the page
// bound, the rest counted and reported as a limit, and the heap stays
// small.
func TestVerifyCrawlKeepsLinksBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("serves 100 pages of 60,000 links")
	}
	const links = 60_000
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		dir := strings.TrimSuffix(r.URL.Path, "/")
		b := make([]byte, 0, links*(len(dir)+16))
		for i := range links {
			b = append(b, `<a href="`...)
			b = append(b, dir...)
			b = append(b, '/')
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, `">`...)
		}
		w.Write(b)
	}))
	defer srv.Close()
	_, server, _ := keys.Generate(true)
	o := verify.Options{SiteURL: srv.URL + "/", ServerKey: server.Marshal(), MaxPages: 100, Rate: 600000, HygienePages: -1}
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // slow under -race
	defer cancel()
	rep, err := verify.Run(ctx, o)
	close(stop)
	wg.Wait()
	if !errors.Is(err, verify.ErrNoGeneration) {
		t.Fatalf("got %v, want ErrNoGeneration", err)
	}
	growth := int64(peak.Load()) - int64(base.HeapInuse)
	t.Logf("peak heap growth %d MiB; crawl %+v", growth>>20, rep.Crawl)
	const most = 256 << 20 // 100 pages of 1.4 MiB, a few at a time, and their links: far less
	if growth > most {
		t.Errorf("heap grew by %d MiB, more than %d MiB", growth>>20, most>>20)
	}
	if !strings.Contains(rep.Crawl.Limit, "links") || rep.Crawl.Requests > 100 {
		t.Errorf("the links not kept are not reported: limit %q", rep.Crawl.Limit)
	}
}
