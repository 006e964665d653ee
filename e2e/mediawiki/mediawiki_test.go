package mediawiki

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/e2e/internal/e2etest"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/porttest"
	"github.com/lazarus-preserve/lazarus/internal/source"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// mwNotes is how many pages the wiki gets besides its Main Page, which
// links to them.
const mwNotes = 8

// mwEvery is how often the module checks its sources.
const mwEvery = 5 * time.Second

// mwImage is the uploaded image's name in the wiki (File:…).
const mwImage = "Lazarus-photo.png"

// mwVolatile are the lines of a MediaWiki dump (mariadb-dump
// --skip-extended-insert: one row a line) that change on visits without
// the wiki changing: the object cache (parsed pages, among them, with
// their expiry), ResourceLoader's record of the
// files its modules were built from, and tables' next AUTO_INCREMENT
// values. The recipe of docs/RECOVER.md.
var mwVolatile = []string{
	"^INSERT INTO \\x60objectcache\\x60 VALUES ",
	"^INSERT INTO \\x60module_deps\\x60 VALUES ",
	"^\\) ENGINE=\\w+ AUTO_INCREMENT=\\d+ ",
}

// mwSite is a MediaWiki wiki the test made.
type mwSite struct {
	tools   e2etest.Tools
	dir     string   // holds the socket directory and the document root
	docroot string   // MediaWiki, as served
	sock    string   // MariaDB's socket
	url     string   // http://127.0.0.1:port
	pages   []mwPage // the pages made, the Main Page first
	upload  string   // the uploaded image's URL path
	image   []byte   // the uploaded image
}

// mwPage is one page of the wiki: its title and its wikitext.
type mwPage struct {
	title, text string
}

// path is the page's URL path ($wgArticlePath /wiki/$1).
func (p mwPage) path() string {
	return "/wiki/" + url.PathEscape(strings.ReplaceAll(p.title, " ", "_"))
}

// TestMediaWikiComesBackFromTheArchives: Debian's MediaWiki on PHP-FPM
// and MariaDB, served by Caddy with the lazarus directive building its
// own generations (LocalSettings.php, the uploaded images, a
// mariadb-dump with volatile lines named), crawled by wget into a WARC;
// then everything is destroyed, the server side recovered from the WARC
// alone and resurrected with docs/recipes/resurrect-mediawiki.sh
// (database, user and grants from the recovered LocalSettings.php, the
// dump imported, files back with their owners) and served again: every
// page's wikitext, the rendered pages and the image come back.
func TestMediaWikiComesBackFromTheArchives(t *testing.T) {
	tools := needMediaWikiStack(t)
	if e2etest.RaceEnabled {
		t.Skip("a MediaWiki wiki is too slow under the race detector")
	}
	start := time.Now()
	core := mwCore(t)
	site := newMWSite(t, tools, core)
	t.Logf("MediaWiki's files laid out in %v", time.Since(start).Round(time.Millisecond))
	db := e2etest.StartMariaDB(t, tools, site.sock)
	fpm := e2etest.StartPHPFPM(t, tools)
	site.install(t, db)

	// Before protection, as on a wiki up a while: each page read once
	// (parsed into the cache), and the file page, whose thumbnail is made
	// under images/thumb/ (excluded, but making it changes the time of
	// images/, and so the segment); and a page's weight on the wire.
	stop := e2etest.RunCaddyfile(t, t.TempDir(), site.caddyfile(fpm, ""))
	before := site.weigh(t)
	if status, _, _ := e2etest.FetchWire(t, site.url+"/wiki/File:"+mwImage); status != 200 {
		t.Fatalf("the file page: status %d", status)
	}
	stop()

	// Protected by the module.
	owner, server, err := keys.Generate(true)
	e2etest.Must(t, err)
	serverKey := filepath.Join(t.TempDir(), "server.key")
	e2etest.Must(t, os.WriteFile(serverKey, server.Marshal(), 0o600))
	storage := t.TempDir()
	stop = e2etest.RunCaddyfile(t, storage, site.caddyfile(fpm, site.lazarus(db, serverKey)))
	e2etest.WaitGenerations(t, storage, 1)
	after := site.weigh(t)
	e2etest.LogWeight(t, "a wiki page", before, after)

	// Crawled: the crawl's visits rewrite the database (the object cache,
	// ResourceLoader's records) but change nothing in substance, so the
	// module, checking its sources once more after it, makes no new
	// generation.
	work := t.TempDir()
	dumped := site.dump(t, db)
	start = time.Now()
	warc := e2etest.Crawl(t, tools.Wget, site.url+"/", work)
	t.Logf("crawled in %v", time.Since(start).Round(time.Millisecond))
	time.Sleep(mwEvery + 2*time.Second)
	stop()
	if bytes.Equal(dumped, site.dump(t, db)) {
		t.Error("the crawl did not rewrite the database: the test shows nothing about volatile lines")
	}
	if n := e2etest.CountGenerations(t, storage); n != 1 {
		t.Errorf("%d generations published in all; want 1 (the crawl changed the database in substance)", n)
	}

	// Everything goes: the web server, PHP, the database, the files.
	original := site.snapshot(t)
	fpm.Stop()
	db.Stop()
	for _, p := range []string{site.docroot, site.varDir(), db.Datadir, storage} {
		e2etest.Must(t, os.RemoveAll(p))
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

	// Resurrected: the package's directories, a new database server at the
	// address LocalSettings.php names, the recipe, PHP and Caddy again.
	site.makeVar(t)
	db = e2etest.StartMariaDB(t, tools, site.sock)
	site.docroot = filepath.Join(site.dir, "resurrected")
	start = time.Now()
	script := exec.Command("sh", "../../docs/recipes/resurrect-mediawiki.sh", out, site.docroot)
	script.Env = append(os.Environ(), "MYSQL="+db.Client(), "MW_CORE="+core)
	if b, err := script.CombinedOutput(); err != nil {
		t.Fatalf("resurrect-mediawiki.sh: %v\n%s", err, b)
	} else {
		t.Logf("resurrect-mediawiki.sh, in %v:\n%s", time.Since(start).Round(time.Millisecond), b)
	}
	fpm = e2etest.StartPHPFPM(t, tools)
	e2etest.RunCaddyfile(t, t.TempDir(), site.caddyfile(fpm, ""))
	site.checkServed(t)
}

// newMWSite lays out MediaWiki from core in a new document root (its
// files hard links to core's: nothing writes to them), as Debian's
// /var/lib/mediawiki is: an uploads directory owned by the web
// user in place of the package's links to it and to LocalSettings.php,
// and a robots.txt keeping crawlers to the articles (the scripts'
// addresses, special pages, edit and history links stay out).
func newMWSite(t *testing.T, tools e2etest.Tools, core string) *mwSite {
	t.Helper()
	dir := e2etest.SharedTempDir(t)
	port := porttest.FreePort(t)
	s := &mwSite{tools: tools, dir: dir, docroot: filepath.Join(dir, "www"), sock: filepath.Join(dir, "mysqld.sock"),
		url: fmt.Sprintf("http://127.0.0.1:%d", port)}
	e2etest.LinkTree(t, core, s.docroot, nil)
	images := filepath.Join(s.docroot, "images")
	for _, p := range []string{images, filepath.Join(s.docroot, "LocalSettings.php")} {
		e2etest.Must(t, os.Remove(p))
	}
	e2etest.CopyTree(t, debianImagesDir(), images, nil)
	if uid, gid, ok := e2etest.WebUser(t); ok {
		e2etest.Must(t, os.Chown(images, uid, gid))
	}
	robots := "User-agent: *\nDisallow: /index.php\nDisallow: /api.php\nDisallow: /wiki/Special:\n"
	e2etest.Must(t, os.WriteFile(filepath.Join(s.docroot, "robots.txt"), []byte(robots), 0o644))
	s.makeVar(t)
	return s
}

// install creates the database and its user, installs MediaWiki with
// maintenance/install.php (short URLs added to the LocalSettings.php it
// writes), and makes the content with maintenance scripts, as the web
// user: the notes (importTextFiles.php), the Main Page linking to them
// (edit.php) and the image they show (importImages.php); then it runs
// the jobs the edits queued.
func (s *mwSite) install(t *testing.T, db *e2etest.MariaDB) {
	t.Helper()
	start := time.Now()
	password := fmt.Sprintf("pw-%x'\"$x\\", rand.Uint64())
	db.SQL(t, fmt.Sprintf("CREATE DATABASE mw_lazarus; CREATE USER 'mw_lazarus'@'localhost' IDENTIFIED BY %s; GRANT ALL PRIVILEGES ON mw_lazarus.* TO 'mw_lazarus'@'localhost';",
		e2etest.SQLQuote(password)))
	work := e2etest.SharedTempDir(t)
	uid, gid, _ := e2etest.WebUser(t)
	e2etest.Must(t, os.Chown(work, uid, gid))
	php := func(stdin []byte, script string, args ...string) []byte {
		return e2etest.RunAsWithInput(t, s.docroot, stdin, append([]string{s.tools.PHP, "maintenance/" + script}, args...)...)
	}
	php(nil, "install.php", "--confpath="+work, "--dbtype=mysql", "--dbserver=localhost:"+s.sock,
		"--dbname=mw_lazarus", "--dbuser=mw_lazarus", "--dbpass="+password, "--installdbuser=mw_lazarus", "--installdbpass="+password,
		"--server="+s.url, "--scriptpath=", "--lang=en", "--skins=Vector", "--pass=lazarus-admin-"+fmt.Sprint(rand.Uint64()),
		"Lazarus Wiki", "Admin")
	conf, err := os.ReadFile(filepath.Join(work, "LocalSettings.php"))
	e2etest.Must(t, err)
	conf = append(conf, strings.ReplaceAll(mwSettings, "VAR", s.varDir())...)
	cfg := filepath.Join(s.docroot, "LocalSettings.php")
	e2etest.Must(t, os.WriteFile(cfg, conf, 0o640))
	if _, gid, ok := e2etest.WebUser(t); ok {
		e2etest.Must(t, os.Chown(cfg, 0, gid)) // root:www-data 0640, as Debian's config files
	}

	notes := filepath.Join(work, "notes")
	e2etest.Must(t, os.Mkdir(notes, 0o755))
	main := "The field notes of the '''Lazarus''' wiki, whose server side the archives keep.\n"
	for i := 1; i <= mwNotes; i++ {
		p := mwPage{title: fmt.Sprintf("Field note %d", i)}
		for n := 1; n <= 4; n++ {
			p.text += fmt.Sprintf("Note %d, paragraph %d. Web archives keep the pages a wiki serves but never its server side: "+
				"the scripts, the configuration, the database. This paragraph is here so that the page weighs what a page does.\n\n", i, n)
		}
		p.text += fmt.Sprintf("== Seen ==\n[[File:%s|Photo %d]]\n\nNext: [[Field note %d]].", mwImage, i, i%mwNotes+1)
		e2etest.Must(t, os.WriteFile(filepath.Join(notes, p.title+".txt"), []byte(p.text), 0o644))
		s.pages = append(s.pages, p)
		main += fmt.Sprintf("* [[%s]]\n", p.title)
	}
	php(nil, "importTextFiles.php", "--user=Admin", "--summary=field notes", filepath.Join(notes, "*.txt"))
	s.pages = append([]mwPage{{title: "Main Page", text: strings.TrimSpace(main)}}, s.pages...)
	php([]byte(main), "edit.php", "--user=Admin", "--summary=the notes", "Main Page")

	s.image = e2etest.Photo()
	uploads := filepath.Join(work, "uploads")
	e2etest.Must(t, os.Mkdir(uploads, 0o755))
	e2etest.Must(t, os.WriteFile(filepath.Join(uploads, mwImage), s.image, 0o644))
	php(nil, "importImages.php", "--user=Admin", "--comment=A photo the notes show", uploads)
	php(nil, "runJobs.php")
	m, err := filepath.Glob(filepath.Join(s.docroot, "images", "*", "*", mwImage))
	if err != nil || len(m) != 1 {
		t.Fatalf("the uploaded image is not in images/*/*/: %v %v", m, err)
	}
	rel, _ := filepath.Rel(s.docroot, m[0])
	s.upload = "/" + filepath.ToSlash(rel)
	t.Logf("MediaWiki installed in %v: %d pages, image %s (%d bytes)", time.Since(start).Round(time.Millisecond), len(s.pages), s.upload, len(s.image))
}

// mwSettings are added to the LocalSettings.php install.php wrote:
// articles at /wiki/TITLE (no query string: archives keep such pages and
// the module gives them blocks), the Main Page at / rather than a
// redirect there (the root page carries the manifest), uploads on, thumbnails by PHP's GD
// rather than ImageMagick, which is not installed, and the cache and log
// directories of Debian's includes/PlatformSettings.php
// (/var/cache/mediawiki, /var/log/mediawiki) under the test's VAR.
const mwSettings = `
# Added for the Lazarus test wiki.
$wgArticlePath = "/wiki/$1";
$wgMainPageIsDomainRoot = true;
$wgEnableUploads = true;
$wgUseImageMagick = false;
$wgCacheDirectory = 'VAR/cache/mediawiki';
$wgDBerrorLog = 'VAR/log/mediawiki/dberror.log';
$wgDebugLogGroups = ['exception' => 'VAR/log/mediawiki/exception.log', 'error' => 'VAR/log/mediawiki/error.log', 'fatal' => 'VAR/log/mediawiki/fatal.log'];
`

// makeVar makes what Debian's package makes in /var for MediaWiki, its
// cache and log directories, owned by the web user, under the test's
// VAR.
func (s *mwSite) makeVar(t *testing.T) {
	t.Helper()
	uid, gid, _ := e2etest.WebUser(t)
	for _, d := range []string{"cache/mediawiki", "log/mediawiki"} {
		p := filepath.Join(s.varDir(), d)
		e2etest.Must(t, os.MkdirAll(p, 0o755))
		e2etest.Must(t, os.Chown(p, uid, gid))
	}
}

// varDir stands in for /var.
func (s *mwSite) varDir() string {
	return filepath.Join(s.dir, "var")
}

// caddyfile is the site block serving MediaWiki with php_fastcgi (whose
// try_files sends /wiki/TITLE to index.php) and gzip, with the lazarus
// directive's block if given.
func (s *mwSite) caddyfile(fpm *e2etest.PHPFPM, lazarus string) string {
	return fmt.Sprintf(`%s {
	root * %s
	encode gzip
	%s
	php_fastcgi unix/%s
	file_server
}
`, s.url, s.docroot, lazarus, fpm.Sock)
}

// lazarus is the lazarus directive protecting the wiki: LocalSettings.php,
// the uploaded images but their thumbnails (MediaWiki makes them again
// when asked) and the database, its volatile lines named.
func (s *mwSite) lazarus(db *e2etest.MariaDB, serverKey string) string {
	quoted := make([]string, len(mwVolatile))
	for i, v := range mwVolatile {
		quoted[i] = "`" + v + "`"
	}
	return fmt.Sprintf(`lazarus {
		source %s config
		source %s
		exclude thumb/
		dump db %s
		volatile db %s
		key %s
		every %s
		carriers 10
		reload_interval 200ms
	}`, filepath.Join(s.docroot, "LocalSettings.php"), filepath.Join(s.docroot, "images"),
		db.DumpCommand("mw_lazarus", "--skip-dump-date"), strings.Join(quoted, " "), serverKey, mwEvery)
}

// dump returns the database's dump, as the module makes it.
func (s *mwSite) dump(t *testing.T, db *e2etest.MariaDB) []byte {
	t.Helper()
	cmd := db.DumpCommand("mw_lazarus", "--skip-dump-date")
	out, err := exec.Command("sh", "-c", cmd).Output()
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	return out
}

// weigh returns the wire weight of every page, fetching each.
func (s *mwSite) weigh(t *testing.T) []e2etest.Wire {
	t.Helper()
	var out []e2etest.Wire
	for _, p := range s.pages {
		status, body, w := e2etest.FetchWire(t, s.url+p.path())
		if status != 200 || !bytes.Contains(body, []byte(p.title)) {
			t.Fatalf("%s: status %d, %d bytes without its title", p.path(), status, len(body))
		}
		out = append(out, w)
	}
	return out
}

// mwOriginal is what the wiki held before it was destroyed.
type mwOriginal struct {
	config []byte        // LocalSettings.php
	images *e2etest.Tree // the uploads directory
}

// snapshot records LocalSettings.php and the uploads directory but the
// thumbnails, with owners.
func (s *mwSite) snapshot(t *testing.T) *mwOriginal {
	t.Helper()
	config, err := os.ReadFile(filepath.Join(s.docroot, "LocalSettings.php"))
	e2etest.Must(t, err)
	return &mwOriginal{config: config, images: e2etest.SnapshotTree(t, filepath.Join(s.docroot, "images"),
		func(rel string) bool { return strings.HasPrefix(rel, "thumb") })}
}

// checkRestored checks what recover wrote: LocalSettings.php under its
// own name, the images byte for byte with their owners (as root), the
// dump; and the report's owner counts.
func (o *mwOriginal) checkRestored(t *testing.T, out string, rep *lzrecover.Report) {
	t.Helper()
	if got, err := os.ReadFile(filepath.Join(out, "config", "LocalSettings.php")); err != nil || !bytes.Equal(got, o.config) {
		t.Errorf("config/LocalSettings.php: %d bytes, %v; want the wiki's %d", len(got), err, len(o.config))
	}
	o.images.Check(t, filepath.Join(out, "images"), "images")
	if dump, err := os.ReadFile(filepath.Join(out, "db")); err != nil || !bytes.Contains(dump, []byte("Note 1, paragraph 1.")) {
		t.Errorf("db: %d bytes, %v; want the dump with the pages", len(dump), err)
	}
	e2etest.CheckOwnersGiven(t, rep)
}

// checkServed checks the resurrected wiki: every page's wikitext is the
// one written (api.php), every page is rendered with its text and the
// image, the image is the one uploaded, byte for byte, and the uploads
// are the web user's again.
func (s *mwSite) checkServed(t *testing.T) {
	t.Helper()
	texts := s.wikitext(t)
	back := 0
	for _, p := range s.pages {
		status, body, _ := e2etest.FetchWire(t, s.url+p.path())
		rendered := status == 200 && bytes.Contains(body, []byte(p.title))
		if p.title != "Main Page" {
			rendered = rendered && bytes.Contains(body, []byte(strings.SplitN(p.text, ".", 2)[0])) && bytes.Contains(body, []byte(s.upload))
		}
		switch {
		case texts[p.title] != p.text:
			t.Errorf("%s: wikitext %q, want %q", p.title, texts[p.title], p.text)
		case !rendered:
			t.Errorf("%s: status %d, %d bytes, text or image missing", p.path(), status, len(body))
		default:
			back++
		}
	}
	t.Logf("pages back (wikitext and rendered): %d of %d", back, len(s.pages))
	if status, body, _ := e2etest.FetchWire(t, s.url+"/"); status != 200 || !bytes.Contains(body, []byte(s.pages[mwNotes].title)) {
		t.Errorf("front page: status %d without the last note's link", status)
	}
	if status, body, _ := e2etest.FetchWire(t, s.url+s.upload); status != 200 || !bytes.Equal(body, s.image) {
		t.Errorf("%s: status %d, %d bytes; want the %d uploaded", s.upload, status, len(body), len(s.image))
	} else {
		t.Logf("image back: %s, %d bytes, identical", s.upload, len(body))
	}
	if uid, gid, root := e2etest.WebUser(t); root {
		info, err := os.Stat(filepath.Join(s.docroot, strings.TrimPrefix(s.upload, "/")))
		e2etest.Must(t, err)
		if st := info.Sys().(*syscall.Stat_t); int(st.Uid) != uid || int(st.Gid) != gid {
			t.Errorf("the served upload is owned by %d:%d, want the web user's %d:%d", st.Uid, st.Gid, uid, gid)
		}
	}
}

// wikitext asks api.php for the current wikitext of every page, by
// title.
func (s *mwSite) wikitext(t *testing.T) map[string]string {
	t.Helper()
	titles := make([]string, len(s.pages))
	for i, p := range s.pages {
		titles[i] = p.title
	}
	q := url.Values{"action": {"query"}, "prop": {"revisions"}, "rvprop": {"content"}, "rvslots": {"main"},
		"format": {"json"}, "formatversion": {"2"}, "titles": {strings.Join(titles, "|")}}
	status, body, _ := e2etest.FetchWire(t, s.url+"/api.php?"+q.Encode())
	var r struct {
		Query struct {
			Pages []struct {
				Title     string `json:"title"`
				Revisions []struct {
					Slots struct {
						Main struct {
							Content string `json:"content"`
						} `json:"main"`
					} `json:"slots"`
				} `json:"revisions"`
			} `json:"pages"`
		} `json:"query"`
	}
	if err := json.Unmarshal(body, &r); status != 200 || err != nil {
		t.Fatalf("api.php: status %d, %v: %.300s", status, err, body)
	}
	out := map[string]string{}
	for _, p := range r.Query.Pages {
		if len(p.Revisions) > 0 {
			out[p.Title] = p.Revisions[0].Slots.Main.Content
		}
	}
	return out
}
