package wordpress

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/e2e/internal/e2etest"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/porttest"
	"github.com/lazarus-preserve/lazarus/internal/source"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// wpPosts is how many posts the site gets (besides WordPress's own
// "Hello world!").
const wpPosts = 12

// wpIdle is how long the protected site sits idle with visitors while
// the module checks its sources every wpEvery: a shortened stand-in for
// ten idle minutes (measured once: no generation, where comparing bytes
// would have made 58 with the dated dump and 9 with --skip-dump-date),
// long enough for WordPress's 60 s style cache, made when the posts were
// first read before protection, to be rewritten on a visit.
const (
	wpIdle  = 90 * time.Second
	wpEvery = 5 * time.Second
)

// wpVolatile are the lines of a WordPress dump (mariadb-dump
// --skip-extended-insert: one row a line) that change on visits without
// the site changing: transients (caches) and their timeouts, the cron
// schedule, the flags of posts whose pings a scheduled job has yet to
// send, and tables' next AUTO_INCREMENT values that the rewritten
// transients move on. The recipe of docs/INJECT.md.
var wpVolatile = []string{
	"^INSERT INTO \\x60wp_options\\x60 VALUES \\(\\d+,'_(site_)?transient_",
	"^INSERT INTO \\x60wp_options\\x60 VALUES \\(\\d+,'cron',",
	"^INSERT INTO \\x60wp_postmeta\\x60 VALUES \\(\\d+,\\d+,'_(pingme|encloseme)',",
	"^\\) ENGINE=\\w+ AUTO_INCREMENT=\\d+ ",
}

// wpSite is a WordPress site the test made.
type wpSite struct {
	tools   e2etest.Tools
	dir     string   // holds the socket directory and the document root
	docroot string   // WordPress, as served
	sock    string   // MariaDB's socket
	port    int      // the site listens on 127.0.0.1:port
	url     string   // http://127.0.0.1:port
	posts   []wpPost // the posts made
	upload  string   // the uploaded image's URL path
	image   []byte   // the uploaded image
}

// wpPost is one published post.
type wpPost struct {
	Title string `json:"title"`
	URL   string `json:"url"`
}

// TestWordPressResurrection: Debian's WordPress on PHP-FPM and MariaDB,
// served by Caddy with the lazarus directive building its own
// generations (wp-config.php, wp-content without the packaged theme, a
// mariadb-dump with volatile lines named), idle with visitors for a
// while, crawled by wget into a WARC; then everything is destroyed, the
// server side recovered from the WARC alone and resurrected with
// docs/recipes/resurrect-wordpress.sh (database, user and grants from
// the recovered wp-config.php, the dump imported, files back with their
// owners) and served again: every post and the uploaded image come back.
func TestWordPressResurrection(t *testing.T) {
	tools := needWordPressStack(t)
	if e2etest.RaceEnabled {
		t.Skip("a WordPress site is too slow under the race detector")
	}
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	core := wpCore(t)
	site := newWPSite(t, tools, core)
	db := e2etest.StartMariaDB(t, tools, site.sock)
	fpm := e2etest.StartPHPFPM(t, tools)
	site.install(t, db)

	// Before protection: the jobs WordPress queued when the posts were
	// published have run, as on a site that has been up a while, and a
	// typical post's weight on the wire.
	stop := e2etest.RunCaddyfile(t, t.TempDir(), site.caddyfile(fpm, ""))
	site.runCron(t, db)
	before := site.weigh(t)
	stop()

	// Protected by the module.
	keyDir := t.TempDir()
	owner, server, err := keys.Generate(true)
	if err != nil {
		t.Fatal(err)
	}
	serverKey := filepath.Join(keyDir, "server.key")
	if err := os.WriteFile(serverKey, server.Marshal(), 0o600); err != nil {
		t.Fatal(err)
	}
	storage := t.TempDir()
	stop = e2etest.RunCaddyfile(t, storage, site.caddyfile(fpm, site.lazarus(db, serverKey)))
	e2etest.WaitGenerations(t, storage, 1)
	after := site.weigh(t)
	e2etest.LogWeight(t, "a post", before, after)

	gens, byteCompare := site.idle(t, db, storage)
	t.Logf("idle %v with visitors, sources checked every %v: %d generation(s) made after the first; "+
		"comparing the dump's bytes would have made %d (the README's dated dump) and %d (--skip-dump-date)",
		wpIdle, wpEvery, gens, byteCompare[0], byteCompare[1])
	if gens != 0 {
		t.Errorf("%d generations made while nothing changed in substance", gens)
	}
	if byteCompare[1] == 0 {
		t.Error("WordPress did not rewrite its database while idle: the test shows nothing about volatile lines")
	}

	work := t.TempDir()
	start := time.Now()
	warc := e2etest.Crawl(t, site.tools.Wget, site.url+"/", work, "-e", "robots=off")
	t.Logf("crawled in %v", time.Since(start).Round(time.Millisecond))
	stop()
	if n := e2etest.CountGenerations(t, storage); n != 1 {
		t.Errorf("%d generations published in all; want 1", n)
	}

	// Everything goes: the web server, PHP, the database, the files.
	original := site.snapshot(t)
	fpm.Stop()
	db.Stop()
	for _, p := range []string{site.docroot, db.Datadir, storage} {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}

	// Recovered from the WARC alone.
	out := filepath.Join(t.TempDir(), "restored")
	start = time.Now()
	rep, err := lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: owner.Marshal(), Out: out, TempDir: t.TempDir(),
		Sources: []source.Source{source.WARCSource{Path: warc}}})
	if err != nil {
		t.Fatalf("recover: %v\n%s", err, strings.Join(rep.Problems, "\n"))
	}
	t.Logf("recovered generation %s in %v: %d pages read, %d good blocks; owners %+v",
		rep.Generation, time.Since(start).Round(time.Millisecond), rep.Pages, rep.Blocks, rep.Owners)
	original.checkRestored(t, out, rep)

	// Resurrected: a new database server at the address wp-config.php
	// names, the recipe, PHP and Caddy again.
	db = e2etest.StartMariaDB(t, tools, site.sock)
	site.docroot = filepath.Join(site.dir, "resurrected")
	script := exec.Command("sh", "../../docs/recipes/resurrect-wordpress.sh", out, site.docroot)
	script.Env = append(os.Environ(), "MYSQL="+db.Client(), "WP_CORE="+core)
	if b, err := script.CombinedOutput(); err != nil {
		t.Fatalf("resurrect-wordpress.sh: %v\n%s", err, b)
	} else {
		t.Logf("resurrect-wordpress.sh:\n%s", b)
	}
	fpm = e2etest.StartPHPFPM(t, tools)
	e2etest.RunCaddyfile(t, t.TempDir(), site.caddyfile(fpm, ""))
	site.checkServed(t)
}

// newWPSite lays out WordPress from core in a new document root, with a
// wp-config.php of its own and an uploads directory owned by the web
// user, as a Debian admin would.
func newWPSite(t *testing.T, tools e2etest.Tools, core string) *wpSite {
	t.Helper()
	dir := e2etest.SharedTempDir(t)
	port := porttest.FreePort(t)
	s := &wpSite{tools: tools, dir: dir, docroot: filepath.Join(dir, "www"), sock: filepath.Join(dir, "mysqld.sock"),
		port: port, url: fmt.Sprintf("http://127.0.0.1:%d", port)}
	e2etest.CopyTree(t, core, s.docroot, nil)
	password := fmt.Sprintf("pw-%x'\"", rand.Uint64())
	conf := fmt.Sprintf(`<?php
/* The site's configuration: the database it uses, where, and as whom. */
define( 'DB_NAME', 'wp_lazarus' );
define( 'DB_USER', 'wp_lazarus' );
define( 'DB_PASSWORD', '%s' );
define( 'DB_HOST', 'localhost:%s' );
define( 'DB_CHARSET', 'utf8mb4' );
define( 'DB_COLLATE', '' );
define( 'AUTH_KEY', '%x' );
define( 'SECURE_AUTH_KEY', '%x' );
define( 'LOGGED_IN_KEY', '%x' );
define( 'NONCE_KEY', '%x' );
$table_prefix = 'wp_';
define( 'WP_DEBUG', false );
if ( ! defined( 'ABSPATH' ) ) {
	define( 'ABSPATH', __DIR__ . '/' );
}
require_once ABSPATH . 'wp-settings.php';
`, strings.ReplaceAll(password, "'", `\'`), s.sock, rand.Uint64(), rand.Uint64(), rand.Uint64(), rand.Uint64())
	cfg := filepath.Join(s.docroot, "wp-config.php")
	if err := os.WriteFile(cfg, []byte(conf), 0o640); err != nil {
		t.Fatal(err)
	}
	uploads := filepath.Join(s.docroot, "wp-content/uploads")
	if err := os.MkdirAll(uploads, 0o755); err != nil {
		t.Fatal(err)
	}
	if uid, gid, ok := e2etest.WebUser(t); ok {
		e2etest.Must(t, os.Chown(cfg, 0, gid)) // root:www-data 0640, as Debian's config files
		e2etest.Must(t, os.Chown(uploads, uid, gid))
	}
	return s
}

// install creates the database and its user, installs WordPress with
// pretty permalinks, uploads an image and publishes the posts, each with
// a few paragraphs and the image, as the web user.
func (s *wpSite) install(t *testing.T, db *e2etest.MariaDB) {
	t.Helper()
	conf, err := os.ReadFile(filepath.Join(s.docroot, "wp-config.php"))
	if err != nil {
		t.Fatal(err)
	}
	password := strings.ReplaceAll(between(string(conf), "'DB_PASSWORD', '", "' );"), `\'`, "'")
	db.SQL(t, fmt.Sprintf("CREATE DATABASE wp_lazarus; CREATE USER 'wp_lazarus'@'localhost' IDENTIFIED BY '%s'; GRANT ALL PRIVILEGES ON wp_lazarus.* TO 'wp_lazarus'@'localhost';",
		strings.ReplaceAll(strings.ReplaceAll(password, `\`, `\\`), "'", `\'`)))
	s.image = e2etest.Photo()
	img := filepath.Join(e2etest.SharedTempDir(t), "photo.png")
	if err := os.WriteFile(img, s.image, 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(filepath.Dir(img), "install.php")
	if err := os.WriteFile(script, []byte(wpInstallScript), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out := e2etest.RunAs(t, s.docroot, s.tools.PHP, script, s.docroot, s.url, img, fmt.Sprint(wpPosts))
	var made struct {
		Upload string   `json:"upload"`
		Posts  []wpPost `json:"posts"`
	}
	if err := json.Unmarshal(out[bytes.LastIndexByte(bytes.TrimSpace(out), '\n')+1:], &made); err != nil {
		t.Fatalf("install.php printed %q: %v", out, err)
	}
	s.upload, s.posts = made.Upload, made.Posts
	t.Logf("WordPress installed in %v: %d posts, image %s (%d bytes)", time.Since(start).Round(time.Millisecond), len(s.posts), s.upload, len(s.image))
}

// between returns the text of s between the first before and the after
// following it.
func between(s, before, after string) string {
	_, rest, _ := strings.Cut(s, before)
	v, _, _ := strings.Cut(rest, after)
	return v
}

// wpInstallScript installs WordPress and makes the content: argv is the
// document root, the site URL, the image and the number of posts. It
// prints {"upload": PATH, "posts": [{"title", "url"}…]} on its last line.
const wpInstallScript = `<?php
[, $root, $url, $image, $n] = $argv;
$_SERVER['HTTP_HOST'] = parse_url($url, PHP_URL_HOST) . ':' . parse_url($url, PHP_URL_PORT);
$_SERVER['REQUEST_URI'] = '/';
define('WP_INSTALLING', true);
require $root . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/image.php';
wp_install('Lazarus test site', 'admin', 'admin@example.org', true, '', wp_generate_password());
update_option('siteurl', $url);
update_option('home', $url);
$GLOBALS['wp_rewrite']->set_permalink_structure('/%year%/%monthnum%/%postname%/');
$up = wp_upload_bits('lazarus-photo.png', null, file_get_contents($image));
if ($up['error']) { fwrite(STDERR, $up['error']); exit(1); }
$att = wp_insert_attachment(['post_mime_type' => 'image/png', 'post_title' => 'Photo', 'post_status' => 'inherit'], $up['file']);
wp_update_attachment_metadata($att, wp_generate_attachment_metadata($att, $up['file']));
$path = parse_url($up['url'], PHP_URL_PATH);
$posts = [];
for ($i = 1; $i <= $n; $i++) {
	$title = "Field note $i: what the archives keep";
	$body = '';
	for ($p = 1; $p <= 4; $p++) {
		$body .= "<!-- wp:paragraph --><p>Note $i, paragraph $p. Web archives keep the pages a site serves but never its server side: the scripts, the configuration, the database. This paragraph is here so that the post weighs what a post does.</p><!-- /wp:paragraph -->\n";
	}
	$body .= "<!-- wp:image --><figure class=\"wp-block-image\"><img src=\"$path\" alt=\"Photo $i\"/></figure><!-- /wp:image -->";
	$id = wp_insert_post(['post_title' => $title, 'post_content' => $body, 'post_status' => 'publish',
		'post_date' => sprintf('2026-%02d-%02d 10:00:00', 1 + $i % 9, 1 + $i)], true);
	if (is_wp_error($id)) { fwrite(STDERR, $id->get_error_message()); exit(1); }
	$posts[] = ['title' => $title, 'url' => get_permalink($id)];
}
flush_rewrite_rules();
echo json_encode(['upload' => $path, 'posts' => $posts]), "\n";
`

// caddyfile is the site block serving WordPress with php_fastcgi and
// gzip, with the lazarus directive's block if given.
func (s *wpSite) caddyfile(fpm *e2etest.PHPFPM, lazarus string) string {
	return fmt.Sprintf(`%s {
	root * %s
	encode gzip
	%s
	php_fastcgi unix/%s
	file_server
}
`, s.url, s.docroot, lazarus, fpm.Sock)
}

// dumpCommand is the dump a WordPress admin gives the module: one row a
// line, no date, one consistent snapshot.
func (s *wpSite) dumpCommand(db *e2etest.MariaDB, extra ...string) string {
	return db.DumpCommand("wp_lazarus", extra...)
}

// lazarus is the lazarus directive protecting the site: wp-config.php,
// wp-content without the packaged theme (reinstalled with the package),
// and the database, its volatile lines named.
func (s *wpSite) lazarus(db *e2etest.MariaDB, serverKey string) string {
	quoted := make([]string, len(wpVolatile))
	for i, v := range wpVolatile {
		quoted[i] = "`" + v + "`"
	}
	return fmt.Sprintf(`lazarus {
		source %s config
		source %s
		exclude themes/twentytwentythree/
		dump db %s
		volatile db %s
		key %s
		every %s
		carriers 10
		reload_interval 200ms
	}`, filepath.Join(s.docroot, "wp-config.php"), filepath.Join(s.docroot, "wp-content"),
		s.dumpCommand(db, "--skip-dump-date"), strings.Join(quoted, " "), serverKey, wpEvery)
}

// runCron runs WordPress's due scheduled jobs (wp-cron.php answers at
// once and runs them after) and waits until the pings of the new posts
// are sent: the first run after publishing sends them and records what
// it found (rows of wp_postmeta and wp_options change).
func (s *wpSite) runCron(t *testing.T, db *e2etest.MariaDB) {
	t.Helper()
	start := time.Now()
	resp, err := (&http.Client{Timeout: 5 * time.Minute}).Get(s.url + "/wp-cron.php")
	if err != nil {
		t.Fatalf("wp-cron.php: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	const pending = "SELECT COUNT(*) FROM wp_lazarus.wp_postmeta WHERE meta_key IN ('_pingme', '_encloseme')"
	for deadline := time.Now().Add(2 * time.Minute); strings.TrimSpace(db.SQL(t, pending)) != "0"; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("WordPress's scheduled jobs did not send the new posts' pings in 2 minutes")
		}
	}
	t.Logf("wp-cron.php: status %d; the scheduled jobs done in %v", resp.StatusCode, time.Since(start).Round(time.Millisecond))
}

// weigh returns the wire weight of every post, fetching each.
func (s *wpSite) weigh(t *testing.T) []e2etest.Wire {
	t.Helper()
	var out []e2etest.Wire
	for _, p := range s.posts {
		status, body, w := e2etest.FetchWire(t, p.URL)
		if status != 200 || !strings.Contains(string(body), p.Title) {
			t.Fatalf("%s: status %d, %d bytes without its title", p.URL, status, len(body))
		}
		out = append(out, w)
	}
	return out
}

// idle has visitors read the protected site for wpIdle, and returns how
// many generations the module made meanwhile, and how many comparing the
// dump's bytes would have made, checking at the same pace: with the
// README's dated dump and with --skip-dump-date.
func (s *wpSite) idle(t *testing.T, db *e2etest.MariaDB, storage string) (int, [2]int) {
	t.Helper()
	first := e2etest.CountGenerations(t, storage)
	ctx, cancel := context.WithTimeout(context.Background(), wpIdle)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // visitors: a page every second
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			u := s.url + "/"
			if i%2 == 1 {
				u = s.posts[i/2%len(s.posts)].URL
			}
			exec.CommandContext(ctx, s.tools.Wget, "-q", "-O", "/dev/null", u).Run()
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
	var changes [2]int
	var last [2][]byte
	tick := time.NewTicker(wpEvery)
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-tick.C:
			for i, cmd := range []string{s.dumpCommand(db), s.dumpCommand(db, "--skip-dump-date")} {
				out, err := exec.Command("sh", "-c", cmd).Output()
				if err != nil {
					t.Fatalf("%s: %v", cmd, err)
				}
				if last[i] != nil && !bytes.Equal(out, last[i]) {
					changes[i]++
					if i == 1 {
						logSubstance(t, last[i], out)
					}
				}
				last[i] = out
			}
		}
	}
	tick.Stop()
	wg.Wait()
	return e2etest.CountGenerations(t, storage) - first, changes
}

// logSubstance logs the lines of two dumps that differ and that no
// volatile pattern matches: what made a generation.
func logSubstance(t *testing.T, was, now []byte) {
	t.Helper()
	var vol []*regexp.Regexp
	for _, v := range wpVolatile {
		vol = append(vol, regexp.MustCompile(v))
	}
	kept := func(b []byte) map[string]bool {
		out := map[string]bool{}
		for _, l := range strings.Split(string(b), "\n") {
			if !slices.ContainsFunc(vol, func(re *regexp.Regexp) bool { return re.MatchString(l) }) {
				out[l] = true
			}
		}
		return out
	}
	a, b := kept(was), kept(now)
	for l := range a {
		if !b[l] {
			t.Logf("dump line gone: %.200s", l)
		}
	}
	for l := range b {
		if !a[l] {
			t.Logf("dump line new: %.200s", l)
		}
	}
}

// wpOriginal is what the site held before it was destroyed.
type wpOriginal struct {
	config  []byte        // wp-config.php
	content *e2etest.Tree // wp-content but the packaged theme
}

// snapshot records wp-config.php and wp-content, but for the packaged
// theme, with owners.
func (s *wpSite) snapshot(t *testing.T) *wpOriginal {
	t.Helper()
	config, err := os.ReadFile(filepath.Join(s.docroot, "wp-config.php"))
	e2etest.Must(t, err)
	return &wpOriginal{config: config, content: e2etest.SnapshotTree(t, filepath.Join(s.docroot, "wp-content"),
		func(rel string) bool { return strings.HasPrefix(rel, "themes/twentytwentythree") })}
}

// checkRestored checks what recover wrote: wp-config.php under its own
// name, wp-content's files byte for byte with their owners (as root),
// the dump; and the report's owner counts.
func (o *wpOriginal) checkRestored(t *testing.T, out string, rep *lzrecover.Report) {
	t.Helper()
	if got, err := os.ReadFile(filepath.Join(out, "config", "wp-config.php")); err != nil || !bytes.Equal(got, o.config) {
		t.Errorf("config/wp-config.php: %d bytes, %v; want the site's %d", len(got), err, len(o.config))
	}
	o.content.Check(t, filepath.Join(out, "wp-content"), "wp-content")
	if dump, err := os.ReadFile(filepath.Join(out, "db")); err != nil || !bytes.Contains(dump, []byte("Field note 1:")) {
		t.Errorf("db: %d bytes, %v; want the dump with the posts", len(dump), err)
	}
	e2etest.CheckOwnersGiven(t, rep)
}

// checkServed checks the resurrected site: every post is served with
// its title, the front page links to them, the image is the one
// uploaded, and the uploads are the web user's again.
func (s *wpSite) checkServed(t *testing.T) {
	t.Helper()
	back := 0
	for _, p := range s.posts {
		status, body, _ := e2etest.FetchWire(t, p.URL)
		if status == 200 && strings.Contains(string(body), p.Title) && strings.Contains(string(body), s.upload) {
			back++
		} else {
			t.Errorf("%s: status %d, %d bytes, title or image missing", p.URL, status, len(body))
		}
	}
	t.Logf("posts back: %d of %d", back, len(s.posts))
	if status, body, _ := e2etest.FetchWire(t, s.url+"/"); status != 200 || !strings.Contains(string(body), s.posts[len(s.posts)-1].Title) {
		t.Errorf("front page: status %d without the newest post", status)
	}
	if status, body, _ := e2etest.FetchWire(t, s.url+s.upload); status != 200 || !bytes.Equal(body, s.image) {
		t.Errorf("%s: status %d, %d bytes; want the %d uploaded", s.upload, status, len(body), len(s.image))
	}
	if uid, gid, root := e2etest.WebUser(t); root {
		info, err := os.Stat(filepath.Join(s.docroot, strings.TrimPrefix(s.upload, "/")))
		e2etest.Must(t, err)
		if st := info.Sys().(*syscall.Stat_t); int(st.Uid) != uid || int(st.Gid) != gid {
			t.Errorf("the served upload is owned by %d:%d, want the web user's %d:%d", st.Uid, st.Gid, uid, gid)
		}
	}
}
