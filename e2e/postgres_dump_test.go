package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/e2e/internal/e2etest"
	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// pgVolatile are the lines of a plain pg_dump that change with nothing
// changed in substance: docs/INJECT.md's PostgreSQL recipe.
var pgVolatile = []string{
	`^\d+\t_(site_)?transient_`,
	`^\\(un)?restrict [0-9A-Za-z]+$`,
	`^SELECT pg_catalog\.setval\('public\.wp_options_option_id_seq', `,
}

// pgSchema is a WordPress-like database: posts (the rows that matter)
// and options, some of them transients (caches rewritten on visits).
const pgSchema = `
CREATE TABLE wp_posts (id bigserial PRIMARY KEY, post_title text NOT NULL, post_content text, post_date timestamptz NOT NULL);
CREATE TABLE wp_options (option_id bigserial PRIMARY KEY, option_name text NOT NULL UNIQUE, option_value text NOT NULL, autoload text NOT NULL DEFAULT 'yes');
INSERT INTO wp_posts (post_title, post_content, post_date) VALUES
 ('Hello world!', E'Welcome.\tA tab, ''quotes'', "double quotes" and a backslash \\ \na second line.', '2026-01-01 10:00:00+00'),
 ('Über uns', 'Unicode: ünïcødé, 日本語, emoji 🦴', '2026-02-02 12:34:56+00');
INSERT INTO wp_posts (post_title, post_content, post_date)
 SELECT 'Post ' || i, repeat(md5(i::text), 4), timestamptz '2025-01-01 00:00:00+00' + i * interval '1 hour' FROM generate_series(1, 200) i;
INSERT INTO wp_options (option_name, option_value) VALUES
 ('siteurl', 'http://127.0.0.1/'), ('blogname', 'Lazarus e2e'), ('admin_email', 'owner@example.org'),
 ('_transient_timeout_global_styles', '1780000060'), ('_transient_global_styles', 'body{margin:0}'),
 ('_site_transient_timeout_theme_roots', '1780007200'), ('_site_transient_theme_roots', 'a:1:{s:16:"twentytwentythree";s:7:"/themes";}'),
 ('_transient_doing_cron', '1780000000.0001');`

// pgTransientsRewritten is what visits do to the database: an expired
// transient deleted and written again (a new row id), another updated,
// and one written with an upsert (which takes a value of the sequence
// even when the row exists).
const pgTransientsRewritten = `
DELETE FROM wp_options WHERE option_name IN ('_transient_timeout_global_styles', '_transient_global_styles');
INSERT INTO wp_options (option_name, option_value) VALUES ('_transient_timeout_global_styles', '1780000125'), ('_transient_global_styles', 'body{margin:0;padding:0}');
UPDATE wp_options SET option_value = '1780000120.0002' WHERE option_name = '_transient_doing_cron';
INSERT INTO wp_options (option_name, option_value) VALUES ('_site_transient_timeout_theme_roots', '1780007320')
 ON CONFLICT (option_name) DO UPDATE SET option_value = excluded.option_value;`

// TestPostgresDumpVolatileRows runs docs/INJECT.md's PostgreSQL recipe on
// a real server: with pg_dump as the dump and the recipe's volatile
// patterns, an inject with nothing changed makes no new generation, nor
// does one after only transients were rewritten; a changed post makes
// one, and the dump recovered from the pages restores with psql into a
// new database that holds the same rows.
func TestPostgresDumpVolatileRows(t *testing.T) {
	pg := startPostgres(t)
	start := time.Now()
	pg.sql(t, "postgres", "CREATE DATABASE site")
	pg.sql(t, "site", pgSchema)
	before := pg.dump(t, "site")
	t.Logf("%s; pg_dump writes %d bytes, %d lines", pg.version, len(before), strings.Count(before, "\n"))

	site := pgSite(t)
	owner, server, err := keys.Generate(true)
	if err != nil {
		t.Fatal(err)
	}
	o := injector.DefaultOptions()
	o.SiteDir, o.SiteURL, o.ServerKey, o.StateDir = site, "http://127.0.0.1/", server.Marshal(), t.TempDir()
	o.DumpTimeout = time.Minute
	o.Dumps = []injector.Dump{{Name: "db", Command: pg.dumpCommand("site"), Volatile: pgVolatile}}
	inject := func(step string, wantNew bool) {
		t.Helper()
		res, err := injector.Run(context.Background(), o)
		if err != nil {
			t.Fatalf("%s: inject: %v", step, err)
		}
		t.Logf("%s: generation %s, new %v", step, res.Generation, res.New)
		if res.New != wantNew {
			t.Fatalf("%s: a new generation: %v, want %v", step, res.New, wantNew)
		}
	}
	inject("first inject", true)

	// (1) nothing changed
	inject("nothing changed", false)

	// (2) only transients rewritten
	pg.sql(t, "site", pgTransientsRewritten)
	changed := changedLines(before, pg.dump(t, "site"))
	t.Logf("transients rewritten: %d lines of pg_dump's output differ:\n%s", len(changed), strings.Join(changed, "\n"))
	for _, what := range []string{`\restrict `, "_transient_", "setval("} {
		if !slices.ContainsFunc(changed, func(l string) bool { return strings.Contains(l, what) }) {
			t.Fatalf("no line with %q changed: the test shows nothing about its pattern", what)
		}
	}
	inject("transients rewritten", false)

	// (3) a post changed
	pg.sql(t, "site", "UPDATE wp_posts SET post_title = 'Hello again' WHERE id = 1")
	inject("a post changed", true)
	t.Logf("the database made and four injects in %v", time.Since(start).Round(time.Millisecond))

	// (4) recovered from the pages, restored into a new database
	out := recoverInto(t, owner.Marshal(), source.DirSource{Dir: site})
	e2etest.LogSize(t, "recovered dump", filepath.Join(out, "db"))
	pg.sql(t, "postgres", "CREATE DATABASE restored")
	pg.restore(t, "restored", filepath.Join(out, "db"))
	for _, q := range []string{
		"SELECT * FROM wp_posts ORDER BY id",
		"SELECT * FROM wp_options ORDER BY option_name",
		"SELECT last_value FROM wp_posts_id_seq",
	} {
		want, got := pg.sql(t, "site", q), pg.sql(t, "restored", q)
		if got != want {
			t.Fatalf("%s: the restored database differs:\n%s\nwant:\n%s", q, got, want)
		}
	}
	if got := pg.sql(t, "restored", "SELECT post_title FROM wp_posts WHERE id = 1"); got != "Hello again\n" {
		t.Fatalf("restored post 1 is titled %q, want the changed title", got)
	}
	if a, b := withoutVolatile(pg.dump(t, "site")), withoutVolatile(pg.dump(t, "restored")); a != b {
		t.Fatalf("pg_dump of the restored database differs from the original's:\n%s", strings.Join(changedLines(a, b), "\n"))
	}
}

// changedLines lists the lines of a and b that the other lacks, "-" or
// "+" before each.
func changedLines(a, b string) []string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for _, l := range la {
		if !slices.Contains(lb, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range lb {
		if !slices.Contains(la, l) {
			out = append(out, "+ "+l)
		}
	}
	return out
}

// withoutVolatile drops a dump's lines that pgVolatile matches.
func withoutVolatile(dump string) string {
	var res []*regexp.Regexp
	for _, p := range pgVolatile {
		res = append(res, regexp.MustCompile(p))
	}
	var kept []string
	for _, l := range strings.Split(dump, "\n") {
		if !slices.ContainsFunc(res, func(re *regexp.Regexp) bool { return re.MatchString(l) }) {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// pgSite writes a small linked site of four pages.
func pgSite(t *testing.T) string {
	t.Helper()
	site := t.TempDir()
	names := []string{"index.html", "about.html", "posts.html", "contact.html"}
	for i, name := range names {
		var links strings.Builder
		for _, other := range names {
			fmt.Fprintf(&links, "<li><a href=\"/%s\">%s</a></li>\n", other, other)
		}
		writePage(t, site, name, fmt.Sprintf("<!DOCTYPE html>\n<html><head><title>Page %d</title></head>\n<body><h1>Page %d</h1>\n<ul>\n%s</ul>\n</body></html>\n", i, i, links.String()))
	}
	return site
}

// pgServer is a PostgreSQL server the test started: a new cluster
// (initdb, trust authentication, superuser postgres) whose postgres
// listens on a unix socket in its own directory only, without TCP.
type pgServer struct {
	bin     string // the directory of postgres, initdb, pg_dump and psql, of one version
	sock    string // the socket's directory
	version string
	d       *e2etest.Daemon
}

// pgBinDir returns the directory of the newest PostgreSQL programs
// (Debian: /usr/lib/postgresql/VERSION/bin), or skips the test.
func pgBinDir(t *testing.T) string {
	t.Helper()
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	if p, err := exec.LookPath("postgres"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			dirs = append(dirs, filepath.Dir(real))
		}
	}
	major := func(dir string) int { n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir))); return n }
	slices.SortStableFunc(dirs, func(a, b string) int { return major(b) - major(a) })
	for _, d := range dirs {
		if !slices.ContainsFunc([]string{"postgres", "initdb", "pg_dump", "psql"}, func(p string) bool { return !isExecutable(filepath.Join(d, p)) }) {
			return d
		}
	}
	t.Skipf("PostgreSQL (postgres, initdb, pg_dump and psql) is not installed; %s", e2etest.SetupHint)
	return ""
}

// pgUser is who runs the server: the test's own user, or Debian's
// postgres user when the test runs as root (initdb and postgres refuse
// root); ok is false in the first case.
func pgUser(t *testing.T) (uid, gid int, ok bool) {
	t.Helper()
	if os.Geteuid() != 0 {
		return os.Geteuid(), os.Getegid(), false
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		t.Fatalf("running as root without a postgres user to run the server as: %v", err)
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return uid, gid, true
}

// startPostgres makes a new cluster and starts postgres on it, or skips
// the test if PostgreSQL is not installed. Durability is off: the test's
// data lives as long as the test.
func startPostgres(t *testing.T) *pgServer {
	t.Helper()
	pg := &pgServer{bin: pgBinDir(t)}
	dir := t.TempDir()
	uid, gid, asOther := pgUser(t)
	if asOther {
		for _, p := range []string{filepath.Dir(dir), dir} {
			if err := os.Chmod(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	cred := func(cmd *exec.Cmd) *exec.Cmd {
		if asOther {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		}
		return cmd
	}
	data := filepath.Join(dir, "data")
	pg.sock = dir
	initdb := cred(exec.Command(filepath.Join(pg.bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust",
		"-E", "UTF8", "--locale=C", "--no-sync"))
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, e2etest.Tail(out))
	}
	pg.d = e2etest.StartDaemon(t, "postgres", filepath.Join(t.TempDir(), "postgres.log"), cred(exec.Command(filepath.Join(pg.bin, "postgres"),
		"-D", data, "-k", pg.sock, "-c", "listen_addresses=", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")))
	ready := pg.psql("postgres", "-c", "SELECT 1")
	e2etest.WaitFor(t, "postgres", pg.d, func() bool { return exec.Command(ready[0], ready[1:]...).Run() == nil })
	pg.version = strings.TrimSpace(pg.sql(t, "postgres", "SELECT version()"))
	return pg
}

// psql is the command line of psql as the superuser on database db, then
// extra: no ~/.psqlrc, stop at the first error, unaligned rows only.
func (pg *pgServer) psql(db string, extra ...string) []string {
	return append([]string{filepath.Join(pg.bin, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-A", "-t",
		"-h", pg.sock, "-U", "postgres", "-d", db}, extra...)
}

// sql runs statements on database db and returns what they print.
func (pg *pgServer) sql(t *testing.T, db, stmts string) string {
	t.Helper()
	argv := pg.psql(db, "-c", stmts)
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("psql on %s: %v\n%s", db, err, e2etest.Tail(out))
	}
	return string(out)
}

// restore runs the SQL file path on database db with psql, as a dump is
// restored.
func (pg *pgServer) restore(t *testing.T, db, path string) {
	t.Helper()
	argv := pg.psql(db, "-f", path)
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("psql -f %s: %v\n%s", path, err, e2etest.Tail(out))
	}
}

// dumpCommand is the recipe's dump command for database db, with where
// the server listens.
func (pg *pgServer) dumpCommand(db string) string {
	return fmt.Sprintf("%s -h %s -U postgres %s", shellQuote(filepath.Join(pg.bin, "pg_dump")), shellQuote(pg.sock), db)
}

// dump runs the dump command and returns its output.
func (pg *pgServer) dump(t *testing.T, db string) string {
	t.Helper()
	out, err := exec.Command("sh", "-c", pg.dumpCommand(db)).Output()
	if err != nil {
		t.Fatalf("pg_dump %s: %v", db, err)
	}
	return string(out)
}
