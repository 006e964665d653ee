// Command pipeline measures the Lazarus codec on a real directory tree:
// encode (tar, gzip, encrypt, erasure-code, sign, armor into pages) and
// decode (scan pages, verify, rebuild, decrypt, extract). It prints wall
// time, throughput and the process's peak RSS. bench/codec.sh drives it.
//
//	go run ./bench/pipeline -encode -src DIR -pages PAGES [-key owner.key]
//	go run ./bench/pipeline -decode -pages PAGES -out DIR -key owner.key [-scan-workers N] [-writers N]
package main

import (
	"context"
	"flag"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/contentcoding/codingtest"
	"github.com/lazarus-preserve/lazarus/internal/erasure"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/warc"
)

func main() {
	encode := flag.Bool("encode", false, "encode -src into pages under -pages")
	decode := flag.Bool("decode", false, "decode pages under -pages into -out")
	src := flag.String("src", "", "source tree to encode")
	pages := flag.String("pages", "", "directory of generated pages")
	out := flag.String("out", "", "directory to extract into")
	keyPath := flag.String("key", "", "owner.key (generated into -pages when encoding without it)")
	z := flag.Int("z", 48<<10, "block budget in bytes")
	perPage := flag.Int("per-page", 20, "blocks per page")
	warcOut := flag.String("warc", "", "also write the pages as HTTP responses into this .warc.gz (encode)")
	coding := flag.String("coding", "", "Content-Encoding of the WARC's responses: gzip, br, zstd or several (\"gzip,zstd\"); none by default")
	scanWorkers := flag.Int("scan-workers", 0, "goroutines scanning pages (decode); 0: one per core")
	writers := flag.Int("writers", 0, "goroutines writing restored files (decode); 0: the library's default")
	flag.Parse()
	var err error
	start := time.Now()
	var n int64
	switch {
	case *encode:
		n, err = runEncode(*src, *pages, *keyPath, *z, *perPage, *warcOut, *coding)
	case *decode:
		n, err = runDecode(*pages, *out, *keyPath, *scanWorkers, *writers)
	default:
		err = fmt.Errorf("give -encode or -decode")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pipeline:", err)
		os.Exit(1)
	}
	d := time.Since(start)
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	fmt.Printf("bytes=%d seconds=%.2f MB/s=%.1f peak_rss_MiB=%.0f\n", n, d.Seconds(), float64(n)/1e6/d.Seconds(), float64(ru.Maxrss)/1024)
}

func loadOwner(path, pages string) (*keys.Owner, error) {
	if path != "" {
		o, _, err := keys.LoadOwner(path)
		return o, err
	}
	op, _, err := keys.WriteNewPair(pages, false, time.Now())
	if err != nil {
		return nil, err
	}
	o, _, err := keys.LoadOwner(op)
	return o, err
}

func runEncode(src, pages, keyPath string, z, perPage int, warcOut, coding string) (int64, error) {
	if err := os.MkdirAll(pages, 0o755); err != nil {
		return 0, err
	}
	owner, err := loadOwner(keyPath, pages)
	if err != nil {
		return 0, err
	}
	entries, _, err := bundle.Collect(src, "", bundle.CollectOptions{})
	if err != nil {
		return 0, err
	}
	sealer := owner.Server().Sealer()
	sealed, err := codec.Seal(codec.Input{Name: "bench", Entries: entries}, sealer, codec.SealOptions{})
	if err != nil {
		return 0, err
	}
	defer sealed.Close()
	p, err := sealed.Params(z, 1)
	if err != nil {
		return 0, err
	}
	w := &pageWriter{dir: pages, perPage: perPage, sealer: sealer}
	if coding != "" {
		w.codings = strings.Split(coding, ",")
	}
	if warcOut != "" {
		f, err := os.Create(warcOut)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		w.warc = warc.NewWriter(f, true)
	}
	gen := codec.Generation{ID: [16]byte{1}, Time: time.Now().UTC().Truncate(time.Second)}
	if warcOut != "" {
		// A signed manifest on the root page, first in the WARC, makes
		// the crawl a complete restore point for lazarus recover.
		if err := w.manifest(gen, sealed, p, z); err != nil {
			return 0, err
		}
	}
	err = w.addBlocks(sealed.Blocks(gen, p, sealer.Signer))
	if err == nil {
		err = w.flush()
	}
	var total int64
	for _, e := range entries {
		total += e.Size
	}
	return total, err
}

// pageWriter writes perPage comments into each page file.
type pageWriter struct {
	dir     string
	perPage int
	pending [][]byte
	n       int
	warc    *warc.Writer // also write each page as a WARC response record
	codings []string     // Content-Encoding of those records
	sealer  *keys.Sealer
}

func (w *pageWriter) add(c []byte) error {
	w.pending = append(w.pending, c)
	if len(w.pending) < w.perPage {
		return nil
	}
	return w.flush()
}

func (w *pageWriter) flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	w.n++
	name := fmt.Sprintf("page%06d.html", w.n)
	err := w.writePage("https://example.org/"+name, name, w.pending)
	w.pending = w.pending[:0]
	return err
}

// writePage writes a page carrying comments as file name under dir and,
// with a WARC, as a response record for url.
func (w *pageWriter) writePage(url, name string, comments [][]byte) error {
	page, err := htmlblock.Insert([]byte("<!doctype html><html><body><p>page</p></body></html>\n"), comments...)
	if err != nil {
		return err
	}
	if w.warc != nil {
		body, err := codingtest.Encode(page, w.codings...)
		if err != nil {
			return err
		}
		head := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
		if len(w.codings) > 0 {
			head += "Content-Encoding: " + strings.Join(w.codings, ", ") + "\r\n"
		}
		resp := fmt.Sprintf("%sContent-Length: %d\r\n\r\n", head, len(body))
		if err := w.warc.WriteResponse(url, time.Now(), append([]byte(resp), body...)); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(w.dir, name), page, 0o644)
}

// addBlocks adds every block's comment to the pages.
func (w *pageWriter) addBlocks(blocks iter.Seq2[codec.Encoded, error]) error {
	for b, err := range blocks {
		if err != nil {
			return err
		}
		c, err := b.Comment()
		if err != nil {
			return err
		}
		if err := w.add(c); err != nil {
			return err
		}
	}
	return nil
}

// manifest writes the generation's signed manifest as the root page of
// the WARC, and the listing segment's blocks (too large to travel inline
// for a big tree) into the pages.
func (w *pageWriter) manifest(gen codec.Generation, data *codec.Sealed, p erasure.Params, z int) error {
	m := &manifest.Manifest{Generation: manifest.ID(gen.ID), Time: gen.Time.UTC().Truncate(time.Second), Site: "https://example.org/",
		Segments: []manifest.Segment{data.Segment(gen, p)}}
	list := &manifest.FileList{Files: data.Files}
	env, listing, err := codec.BuildManifest(m, list, w.sealer, codec.SealOptions{})
	if err != nil {
		return err
	}
	if listing != nil {
		defer listing.Close()
		lp, err := listing.Params(z, 1)
		if err != nil {
			return err
		}
		if err := w.addBlocks(listing.Blocks(gen, lp, w.sealer.Signer)); err != nil {
			return err
		}
		if env, err = codec.SignWithListing(m, listing, lp, nil, w.sealer); err != nil {
			return err
		}
	}
	c, err := codec.ManifestComment(env)
	if err != nil {
		return err
	}
	return w.writePage("https://example.org/", "index.html", [][]byte{c})
}

func runDecode(pages, out, keyPath string, scanWorkers, writers int) (int64, error) {
	owner, _, err := keys.LoadOwner(keyPath)
	if err != nil {
		return 0, err
	}
	a, err := codec.NewAssembler(owner.Opener(), codec.Options{})
	if err != nil {
		return 0, err
	}
	defer a.Close()
	files, err := filepath.Glob(filepath.Join(pages, "*.html"))
	if err != nil {
		return 0, err
	}
	// Pages are read in order on one goroutine, scanned on scanWorkers
	// and added to the assembler in the order read.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := make(chan codec.Page)
	readErr := make(chan error, 1)
	go func() {
		defer close(in)
		for _, f := range files {
			page, err := os.ReadFile(f)
			if err != nil {
				readErr <- err
				return
			}
			select {
			case in <- codec.Page{Bytes: page}:
			case <-ctx.Done():
				return
			}
		}
	}()
	if err := a.AddPages(ctx, scanWorkers, in, nil); err != nil {
		return 0, err
	}
	select {
	case err := <-readErr:
		return 0, err
	default:
	}
	var data []codec.SegmentStatus
	for _, st := range a.Status() {
		if st.Layout.Kind == block.KindData {
			data = append(data, st)
		}
	}
	if len(data) != 1 || !data[0].Done() {
		return 0, fmt.Errorf("data segment not complete: %+v", data)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return 0, err
	}
	rep, err := a.Extract(data[0].Layout, out, bundle.ExtractOptions{Writers: writers})
	return rep.Bytes, err
}
