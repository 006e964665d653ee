package e2e

import (
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/e2e/internal/e2etest"
	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// serverSide is a real server side: a WordPress tree and a SQLite
// database whose dump sqlite3 itself makes.
type serverSide struct {
	WordPress string // the copied WordPress tree, restored as "wordpress/"
	DB        string // the SQLite database file
	Dump      []byte // what `sqlite3 DB .dump` prints, restored as "db"
}

// newServerSide copies WordPress (leaving out the directories skip
// matches, but never a symbolic link) and creates a small database with
// the sqlite3 command.
func newServerSide(t *testing.T, skip *regexp.Regexp) serverSide {
	t.Helper()
	sqlite := needTool(t, "sqlite3")
	dir := t.TempDir()
	s := serverSide{WordPress: filepath.Join(dir, "wordpress"), DB: filepath.Join(dir, "blog.sqlite")}
	e2etest.CopyTree(t, e2etest.WordPressDir(), s.WordPress, skip)
	sql := `CREATE TABLE wp_posts (ID INTEGER PRIMARY KEY, post_title TEXT NOT NULL, post_content TEXT, post_date TEXT);
CREATE TABLE wp_options (option_name TEXT PRIMARY KEY, option_value TEXT);
INSERT INTO wp_options VALUES ('siteurl', 'http://127.0.0.1/'), ('blogname', 'Lazarus e2e'), ('admin_email', 'owner@example.org');
INSERT INTO wp_posts (post_title, post_content, post_date) VALUES
 ('Hello world!', 'Welcome to WordPress. This is your first post. ''Quotes'' and "double quotes".', '2026-01-01 10:00:00'),
 ('Über uns', 'Unicode: ünïcødé, 日本語, emoji 🦴', '2026-02-02 12:34:56');
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 200)
 INSERT INTO wp_posts (post_title, post_content, post_date) SELECT 'Post ' || i, hex(randomblob(64)), datetime(1700000000 + i*3600, 'unixepoch') FROM n;
CREATE INDEX wp_posts_date ON wp_posts(post_date);`
	if out, err := exec.Command(sqlite, s.DB, sql).CombinedOutput(); err != nil {
		t.Fatalf("sqlite3: %v\n%s", err, out)
	}
	dump, err := exec.Command(sqlite, s.DB, ".dump").Output()
	if err != nil || len(dump) < 1000 || !strings.Contains(string(dump), "CREATE TABLE wp_posts") {
		t.Fatalf("sqlite3 .dump: %v, %d bytes", err, len(dump))
	}
	s.Dump = dump
	return s
}

// dumpCommand is the shell command that dumps the database.
func (s serverSide) dumpCommand() string {
	return "sqlite3 '" + strings.ReplaceAll(s.DB, "'", `'\''`) + "' .dump"
}

// check fails the test unless out holds exactly the server side.
func (s serverSide) check(t *testing.T, out string) {
	t.Helper()
	sameTree(t, s.WordPress, filepath.Join(out, "wordpress"))
	got, err := os.ReadFile(filepath.Join(out, "db"))
	if err != nil || string(got) != string(s.Dump) {
		t.Fatalf("restored dump: %d bytes (%v), want the %d bytes sqlite3 printed", len(got), err, len(s.Dump))
	}
}

// injectOptions returns inject options preserving s with a fresh key
// pair, and the owner key. Not sitetest.Site's: real material, with
// inject's defaults and a dump, outside any site directory of its own.
func (s serverSide) injectOptions(t *testing.T) (injector.Options, []byte) {
	t.Helper()
	owner, server, err := keys.Generate(true)
	if err != nil {
		t.Fatal(err)
	}
	o := injector.DefaultOptions()
	o.Includes = []injector.Include{{Path: s.WordPress}}
	o.Dumps = []injector.Dump{{Name: "db", Command: s.dumpCommand()}}
	o.ServerKey, o.SiteURL = server.Marshal(), "http://127.0.0.1/"
	o.StateDir = t.TempDir()
	o.DumpTimeout = time.Minute
	return o, owner.Marshal()
}

// logResult reports an inject run's segments and pages.
func logResult(t *testing.T, res *injector.Report) {
	t.Helper()
	blocks, bytes := 0, 0
	for _, s := range res.Segments {
		t.Logf("segment %-9s %5d files, tar %8d B, ciphertext %8d B: %d stripe(s) of %d data + %d parity blocks of %d B",
			s.Name, s.Files, s.TarBytes, s.Ciphertext, s.Stripes, s.K, s.M, s.ShardSize)
	}
	for _, p := range res.Pages {
		blocks += p.Blocks
		bytes += p.AddedBytes
	}
	t.Logf("%d blocks, %d bytes of comments over %d of %d carrier pages", blocks, bytes, len(res.Pages), res.Carriers)
	for _, w := range res.Warnings {
		t.Logf("warning: %s", w)
	}
}

// serveDir serves a directory with net/http on loopback and returns its
// URL, ending in "/".
func serveDir(t *testing.T, dir string) string {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// e2etest.CrawlTimeout bounds one crawler run.

// wgetMirror mirrors base with wget into dir/mirror and dir/crawl.warc.gz
// and returns the WARC's path. extra arguments come before the URL.
func wgetMirror(t *testing.T, base, dir string, extra ...string) string {
	t.Helper()
	wget := needTool(t, "wget")
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.CrawlTimeout)
	defer cancel()
	args := []string{"--mirror", "--no-verbose", "--no-host-directories", "-e", "robots=off", "--tries=2", "--timeout=30",
		"--warc-file=" + filepath.Join(dir, "crawl"), "--no-warc-keep-log", "-P", filepath.Join(dir, "mirror")}
	args = append(append(args, extra...), base)
	cmd := exec.CommandContext(ctx, wget, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("wget: %v\n%s", err, e2etest.Tail(out))
	}
	warc := filepath.Join(dir, "crawl.warc.gz")
	e2etest.LogSize(t, "wget WARC", warc)
	return warc
}

// httrackMirror mirrors base with httrack into dir and returns dir.
func httrackMirror(t *testing.T, base, dir string) string {
	t.Helper()
	httrack := needTool(t, "httrack")
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.CrawlTimeout)
	defer cancel()
	// -A: no bandwidth cap; -%c: connections per second; -c: parallel sockets.
	cmd := exec.CommandContext(ctx, httrack, base, "-O", dir, "-q", "-%v0", "-s0", "-A100000000", "-%c100", "-c4")
	cmd.Env = append(os.Environ(), "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("httrack: %v\n%s", err, e2etest.Tail(out))
	}
	return dir
}

// countPages counts the .html files below dir.
func countPages(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".html") {
			n++
		}
		return nil
	})
	return n
}

// needPages fails the test unless the crawl in dir got every page.
func needPages(t *testing.T, dir string, want int) {
	t.Helper()
	if n := countPages(dir); n < want {
		t.Fatalf("the crawl in %s has %d pages, want at least %d", dir, n, want)
	}
}

// recoverInto rebuilds the server side from src into a new directory.
func recoverInto(t *testing.T, owner []byte, src source.Source) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	rep, err := lzrecover.Run(ctx, lzrecover.Options{OwnerKey: owner, Out: out, TempDir: t.TempDir(), Sources: []source.Source{src}})
	if err != nil {
		t.Fatalf("recover: %v\n%s", err, strings.Join(rep.Problems, "\n"))
	}
	t.Logf("recovered generation %s in %v: %d captures listed, %d pages read, %d good blocks, %d rejected",
		rep.Generation, time.Since(start).Round(time.Millisecond), rep.Captures, rep.Pages, rep.Blocks, rep.Rejected)
	return out
}
