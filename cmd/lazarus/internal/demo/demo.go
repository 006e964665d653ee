package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// Options configure the demo.
type Options struct {
	// Keep, if set, is a directory (created, must be empty or absent) that
	// keeps everything for inspection; by default a temporary directory is
	// used and removed.
	Keep string
	// Out receives the story; defaults to io.Discard.
	Out io.Writer
	// Serve starts the web server of the story: Caddy with the Lazarus
	// module serving the bundle in front of the site. Required; the CLI
	// gives an in-process Caddy (internal/ never imports Caddy).
	Serve Server
}

// Server starts a web server for siteDir whose pages carry the blocks of
// the bundle in bundleDir, keeping its own state in storageDir, and
// returns the site's URL and a function that stops it.
type Server func(siteDir, bundleDir, storageDir string) (url string, stop func() error, err error)

// story prints numbered steps with their durations.
type story struct {
	w     io.Writer
	n     int
	start time.Time
	step  time.Time
}

func (s *story) begin(title string) {
	s.n++
	s.step = time.Now()
	fmt.Fprintf(s.w, "\n%d. %s\n", s.n, title)
}

func (s *story) say(format string, args ...any) {
	fmt.Fprintf(s.w, "   "+format+"\n", args...)
}

func (s *story) done() {
	fmt.Fprintf(s.w, "   (%s)\n", time.Since(s.step).Round(time.Millisecond))
}

// Run plays the whole story and returns an error if any step fails or any
// recovered file differs from the original. A done ctx stops it within
// the step at hand (or at the next step) with an error wrapping the
// context's cause; either way the web server is stopped and the temporary
// directory (not a Keep directory) removed before Run returns.
func Run(ctx context.Context, o Options) error {
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.Serve == nil {
		return errors.New("demo: no web server to serve the site with")
	}
	dir, cleanup, err := workDir(o.Keep)
	if err != nil {
		return err
	}
	defer cleanup()
	s := &story{w: o.Out, start: time.Now()}
	d := &run{dir: dir, s: s, server: o.Serve}
	defer d.stopServer()
	for _, step := range []func(context.Context) error{d.create, d.keys, d.inject, d.serve, d.crawl, d.lose, d.recover, d.verify} {
		if ctx.Err() != nil {
			return fmt.Errorf("stopped: %w", context.Cause(ctx))
		}
		if err := step(ctx); err != nil {
			return err
		}
	}
	fmt.Fprintf(o.Out, "\nEvery server file came back byte for byte from the crawl alone, in %s.\n", time.Since(s.start).Round(time.Millisecond))
	if o.Keep != "" {
		fmt.Fprintf(o.Out, "Everything is kept in %s: keys/, archive/crawl.warc.gz, recovered/ (with recovery.json).\n", dir)
	}
	return nil
}

func workDir(keep string) (string, func(), error) {
	if keep == "" {
		d, err := os.MkdirTemp("", "lazarus-demo-")
		return d, func() { os.RemoveAll(d) }, err
	}
	if entries, err := os.ReadDir(keep); err == nil && len(entries) > 0 {
		return "", nil, fmt.Errorf("%s: directory is not empty", keep)
	}
	return keep, func() {}, os.MkdirAll(keep, 0o755)
}

// stopServer stops the web server if it runs.
func (d *run) stopServer() error {
	if d.stop == nil {
		return nil
	}
	stop := d.stop
	d.stop = nil
	return stop()
}

// run carries the state between steps.
type run struct {
	dir    string
	s      *story
	server Server
	stop   func() error // stops the server; nil when none runs
	url    string
	owner  []byte
	res    *injector.Report
}

func (d *run) path(p ...string) string { return filepath.Join(append([]string{d.dir}, p...)...) }

func (d *run) create(context.Context) error {
	d.s.begin("A website and its server side")
	if err := materialize("site", d.path("site")); err != nil {
		return err
	}
	if err := materialize("server", d.path("server")); err != nil {
		return err
	}
	n, b := treeSize(d.path("site"))
	d.s.say("site/:   %d pages, %s (what archives keep)", n, human(b))
	n, b = treeSize(d.path("server"))
	d.s.say("server/: %d files, %s: a PHP app, its config and a SQLite .dump (what archives never see)", n, human(b))
	d.s.done()
	return nil
}

func (d *run) keys(context.Context) error {
	d.s.begin("Keys")
	ownerPath, _, err := keys.WriteNewPair(d.path("keys"), false, time.Now())
	if err != nil {
		return err
	}
	if d.owner, err = os.ReadFile(ownerPath); err != nil {
		return err
	}
	d.s.say("owner.key (offline: decrypts and verifies) and server.key (on the server: encrypts and signs)")
	d.s.say("post-quantum hybrid age recipient (ML-KEM-768 + X25519), Ed25519 signatures")
	d.s.done()
	return nil
}

func (d *run) inject(ctx context.Context) error {
	d.s.begin("A generation: pack, encrypt, erasure-code, sign")
	server, err := os.ReadFile(d.path("keys", keys.ServerFileName))
	if err != nil {
		return err
	}
	pages, err := sitePages()
	if err != nil {
		return err
	}
	o := injector.DefaultOptions()
	o.Includes = []injector.Include{{Path: d.path("server", "app")}, {Path: d.path("server", "config")}}
	o.Dumps = []injector.Dump{{Name: "db", Command: "cat " + d.path("server", "garden.sql")}}
	o.ServerKey, o.SiteURL, o.MaxBlockBytes = server, "http://127.0.0.1/", 4<<10
	o.BundleDir, o.StateDir, o.URLs = d.path("bundle"), d.path("state"), pages
	if d.res, err = injector.Run(ctx, o); err != nil {
		return err
	}
	blocks := 0
	for _, p := range d.res.Pages {
		blocks += p.Blocks
	}
	d.s.say("generation %s", d.res.Generation)
	for _, seg := range d.res.Segments {
		d.s.say("segment %-9s %3d %-7s → %6s encrypted → %d %s of %d data + %d parity blocks of %s",
			seg.Name, seg.Files, plural(seg.Files, "entry", "entries"), human(seg.Ciphertext), seg.Stripes, plural(seg.Stripes, "stripe", "stripes"), seg.K, seg.M, human(int64(seg.ShardSize)))
	}
	d.s.say("%d blocks spread over %d pages; the manifest on the root page", blocks, len(d.res.Pages))
	if o := d.res.Outlook; o != nil && o.Survives >= 0 {
		d.s.say("any %d of the %d carrier pages may be lost: the rest rebuild the server side", o.Survives, o.Carriers)
	}
	d.s.done()
	return nil
}

func (d *run) serve(context.Context) error {
	d.s.begin("Serve the site with Caddy and the Lazarus module")
	var err error
	if d.url, d.stop, err = d.server(d.path("site"), d.path("bundle"), d.path("caddy")); err != nil {
		return fmt.Errorf("starting the web server: %w", err)
	}
	d.s.say("%s  (encode zstd gzip → lazarus → file_server, in this process)", d.url)
	d.s.done()
	return nil
}

func (d *run) crawl(ctx context.Context) error {
	d.s.begin("An archive crawls it")
	if err := os.MkdirAll(d.path("archive"), 0o755); err != nil {
		return err
	}
	st, err := crawl(ctx, d.url, d.path("archive", "crawl.warc.gz"), 1000)
	if err != nil {
		return err
	}
	d.s.say("%d pages, %s as sent (%s), stored in archive/crawl.warc.gz — the Internet Archive's stand-in", st.Pages, human(st.Bytes), st.codings())
	d.s.done()
	return nil
}

func (d *run) lose(context.Context) error {
	d.s.begin("The site is lost")
	if err := d.stopServer(); err != nil {
		return err
	}
	for _, p := range []string{"server", "site", "bundle", "state", "caddy"} {
		if err := os.RemoveAll(d.path(p)); err != nil {
			return err
		}
	}
	d.s.say("server stopped; server/, site/, the bundle, inject's state and Caddy's storage deleted")
	d.s.done()
	return nil
}

func (d *run) recover(ctx context.Context) error {
	d.s.begin("Recover from the archive")
	rep, err := lzrecover.Run(ctx, lzrecover.Options{
		OwnerKey: d.owner, Out: d.path("recovered"), StateDir: d.path("recover-state"),
		Sources: []source.Source{source.WARCSource{Path: d.path("archive", "crawl.warc.gz")}},
	})
	if rep != nil {
		for _, seg := range rep.Segments {
			d.s.say("segment %-9s %s: %d %s, %s", seg.Name, seg.Status, seg.Files, plural(seg.Files, "file", "files"), human(seg.Bytes))
		}
		d.s.say("%d %s read, %d good blocks, %d rejected", rep.Pages, plural(rep.Pages, "capture", "captures"), rep.Blocks, rep.Rejected)
	}
	if err != nil {
		return err
	}
	d.s.done()
	return nil
}

// verify compares every recovered file with the embedded original.
func (d *run) verify(context.Context) error {
	d.s.begin("Verify")
	pairs := map[string]string{"assets/server/app": "app", "assets/server/config": "config"}
	n := 0
	for src, dst := range pairs {
		err := fs.WalkDir(assets, src, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			n++
			return same(p, d.path("recovered", dst, rel))
		})
		if err != nil {
			return err
		}
	}
	if err := same("assets/server/garden.sql", d.path("recovered", "db")); err != nil {
		return err
	}
	d.s.say("%d files and the database dump identical to the originals", n)
	d.s.done()
	return nil
}

func same(asset, path string) error {
	want, err := fs.ReadFile(assets, asset)
	if err != nil {
		return err
	}
	got, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if !bytes.Equal(got, want) {
		return errors.New("verify: " + path + " differs from the original")
	}
	return nil
}

func treeSize(dir string) (n int, b int64) {
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			if info, err := e.Info(); err == nil {
				n++
				b += info.Size()
			}
		}
		return nil
	})
	return n, b
}

// plural is one for 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func human(b int64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}
