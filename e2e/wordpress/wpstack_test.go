package wordpress

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile" // the Caddyfile adapter
	_ "github.com/caddyserver/caddy/v2/modules/standard"          // file_server, encode, php_fastcgi, file_system storage
	_ "github.com/lazarus-preserve/lazarus/caddymodule"           // http.handlers.lazarus
	"github.com/lazarus-preserve/lazarus/e2e/internal/e2etest"
)

// The WordPress stack: Debian's WordPress and its Twenty Twenty-Three
// theme (unpacked by setup.sh), PHP-FPM and MariaDB (installed by
// setup.sh), each started by the test on sockets in its own temporary
// directories, and Caddy in-process from a Caddyfile.

// wpTools are the commands the WordPress test runs, found in PATH or
// /usr/sbin.
type wpTools struct {
	mariadbd, installDB, client, dump, php, fpm, wget string
}

// needWordPressStack returns the tools or skips the test.
func needWordPressStack(t *testing.T) wpTools {
	t.Helper()
	find := func(names ...string) string {
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
			if m, _ := filepath.Glob(filepath.Join("/usr/sbin", n)); len(m) > 0 {
				return m[len(m)-1]
			}
		}
		t.Skipf("%s is not installed; %s", names[0], e2etest.SetupHint)
		return ""
	}
	tools := wpTools{
		mariadbd: find("mariadbd"), installDB: find("mariadb-install-db"), client: find("mariadb"),
		dump: find("mariadb-dump"), php: find("php"), fpm: find("php-fpm*"), wget: find("wget"),
	}
	for _, p := range []string{filepath.Join(e2etest.WordPressDir(), "wp-settings.php"), wordpressThemeDir()} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s is missing; %s", p, e2etest.SetupHint)
		}
	}
	return tools
}

// wordpressThemeDir is Debian's Twenty Twenty-Three theme in the cache.
func wordpressThemeDir() string {
	return filepath.Join(e2etest.CacheDir(), "wordpress-theme/usr/share/wordpress/wp-content/themes/twentytwentythree")
}

// wpCore makes what Debian's wordpress and wordpress-theme-twentytwentythree
// packages install in /usr/share/wordpress: WordPress's files with the
// theme, in a new directory.
func wpCore(t *testing.T) string {
	t.Helper()
	core := filepath.Join(sharedTempDir(t), "core")
	e2etest.CopyTree(t, e2etest.WordPressDir(), core, nil)
	e2etest.CopyTree(t, wordpressThemeDir(), filepath.Join(core, "wp-content/themes/twentytwentythree"), nil)
	return core
}

// sharedTempDir is t.TempDir() made searchable by others (0755, and its
// parent), so PHP-FPM's workers, running as www-data, reach the site.
func sharedTempDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	for _, p := range []string{filepath.Dir(d), d} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// webUser is who PHP runs as: www-data when the test runs as root (as
// Debian runs it), else the test's own user; ok is false in that case.
func webUser(t *testing.T) (uid, gid int, ok bool) {
	t.Helper()
	if os.Geteuid() != 0 {
		return os.Geteuid(), os.Getegid(), false
	}
	u, err := user.Lookup("www-data")
	if err != nil {
		t.Fatalf("running as root without a www-data user: %v", err)
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return uid, gid, true
}

// mariaDB is a MariaDB server the test started on a socket of its own,
// without networking.
type mariaDB struct {
	tools   wpTools
	datadir string
	sock    string
	d       *e2etest.Daemon
}

// startMariaDB makes a new data directory and starts mariadbd on sock;
// root logs in over the socket without a password.
func startMariaDB(t *testing.T, tools wpTools, sock string) *mariaDB {
	t.Helper()
	dir := t.TempDir()
	m := &mariaDB{tools: tools, datadir: filepath.Join(dir, "data"), sock: sock}
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	install := exec.Command(tools.installDB, "--no-defaults", "--datadir="+m.datadir, "--user="+me.Username,
		"--auth-root-authentication-method=normal", "--skip-test-db")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, e2etest.Tail(out))
	}
	m.d = e2etest.StartDaemon(t, "mariadbd", filepath.Join(dir, "mariadbd.log"), exec.Command(tools.mariadbd, "--no-defaults",
		"--datadir="+m.datadir, "--socket="+sock, "--skip-networking", "--pid-file="+filepath.Join(dir, "mariadbd.pid"),
		"--user="+me.Username, "--innodb-buffer-pool-size=32M"))
	e2etest.WaitFor(t, "mariadbd", m.d, func() bool { return exec.Command(tools.client, m.clientArgs("-e", "SELECT 1")...).Run() == nil })
	return m
}

// clientArgs are the arguments of the client as root, then extra.
func (m *mariaDB) clientArgs(extra ...string) []string {
	return append([]string{"--no-defaults", "--socket=" + m.sock, "-uroot"}, extra...)
}

// client is the command line of the client as root: what the
// resurrection's MYSQL is.
func (m *mariaDB) client() string {
	return fmt.Sprintf("%s --no-defaults --socket=%s -uroot", m.tools.client, m.sock)
}

// sql runs statements as root.
func (m *mariaDB) sql(t *testing.T, stmts string) string {
	t.Helper()
	out, err := exec.Command(m.tools.client, m.clientArgs("-N", "-e", stmts)...).CombinedOutput()
	if err != nil {
		t.Fatalf("mariadb: %v\n%s", err, out)
	}
	return string(out)
}

// phpFPM is a PHP-FPM master the test started, listening on sock.
type phpFPM struct {
	sock string
	d    *e2etest.Daemon
}

// startPHPFPM starts PHP-FPM with a configuration of its own: one pool
// of four workers as the web user, on a socket in a new directory.
func startPHPFPM(t *testing.T, tools wpTools) *phpFPM {
	t.Helper()
	dir := sharedTempDir(t)
	p := &phpFPM{sock: filepath.Join(dir, "fpm.sock")}
	uid, gid, _ := webUser(t)
	u, _ := user.LookupId(strconv.Itoa(uid))
	g, _ := user.LookupGroupId(strconv.Itoa(gid))
	conf := fmt.Sprintf(`[global]
pid = %[1]s/fpm.pid
error_log = %[1]s/fpm-error.log
daemonize = no
[site]
user = %[2]s
group = %[3]s
listen = %[4]s
listen.mode = 0666
pm = static
pm.max_children = 4
catch_workers_output = yes
php_admin_value[sendmail_path] = /bin/true
`, dir, u.Username, g.Name, p.sock)
	path := filepath.Join(dir, "fpm.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	p.d = e2etest.StartDaemon(t, "php-fpm", filepath.Join(dir, "fpm.log"), exec.Command(tools.fpm, "--nodaemonize", "--fpm-config", path))
	e2etest.WaitFor(t, "php-fpm", p.d, func() bool {
		c, err := net.Dial("unix", p.sock)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return p
}

// runCaddyfile starts an in-process Caddy from a Caddyfile (its global
// options block is added: admin off, no automatic HTTPS, storage in
// storage) and returns a function that stops it; it is stopped when the
// test ends too.
func runCaddyfile(t *testing.T, storage, body string) (stop func()) {
	t.Helper()
	text := fmt.Sprintf("{\n\tadmin off\n\tpersist_config off\n\tauto_https off\n\tlog {\n\t\tlevel ERROR\n\t}\n\tstorage file_system %s\n}\n%s", storage, body)
	raw, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(text), nil)
	if err != nil {
		t.Fatalf("Caddyfile: %v\n%s", err, text)
	}
	for _, w := range warnings {
		if !strings.Contains(w.Message, "not formatted") {
			t.Logf("Caddyfile: %s", w.String())
		}
	}
	if err := caddy.Load(raw, true); err != nil {
		t.Fatalf("starting Caddy: %v", err)
	}
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			if err := caddy.Stop(); err != nil {
				t.Errorf("stopping Caddy: %v", err)
			}
		}
	}
	t.Cleanup(stop)
	return stop
}

// wire is what a page weighs on the wire: its bytes as sent without and
// with gzip.
type wire struct{ raw, gzip int }

// fetchWire GETs url and returns the status, the body (decoded) and its
// weight on the wire; with gzip it asks for gzip and counts the bytes
// sent.
func fetchWire(t *testing.T, url string) (int, []byte, wire) {
	t.Helper()
	var w wire
	var body []byte
	status := 0
	for _, gz := range []bool{false, true} {
		req, err := http.NewRequest("GET", url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if gz {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		if !gz {
			w.raw, body, status = len(b), b, resp.StatusCode
			continue
		}
		w.gzip = len(b)
		if resp.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err == nil {
				_, err = io.ReadAll(zr)
			}
			if err != nil {
				t.Fatalf("GET %s: gzip body: %v", url, err)
			}
		}
	}
	return status, body, w
}

// runAs runs argv as the web user (when root) and fails the test on
// error; it returns the standard output.
func runAs(t *testing.T, dir string, argv ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	if uid, gid, ok := webUser(t); ok {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, e2etest.Tail(stderr.Bytes()))
	}
	return out
}
