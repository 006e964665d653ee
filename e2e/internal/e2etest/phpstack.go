package e2etest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The PHP stack the CMS tests (WordPress, MediaWiki) run on: PHP-FPM and
// MariaDB (installed by setup.sh), each started by the test on sockets
// in its own temporary directories.

// Tools are the commands a CMS test runs, found in PATH or /usr/sbin.
type Tools struct {
	MariaDBd, InstallDB, Client, Dump, PHP, FPM, Wget string
}

// NeedPHPStack returns the tools or skips the test, saying which is
// missing and how to install it.
func NeedPHPStack(t *testing.T) Tools {
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
		t.Skipf("%s is not installed; %s", names[0], SetupHint)
		return ""
	}
	return Tools{
		MariaDBd: find("mariadbd"), InstallDB: find("mariadb-install-db"), Client: find("mariadb"),
		Dump: find("mariadb-dump"), PHP: find("php"), FPM: find("php-fpm*"), Wget: find("wget"),
	}
}

// NeedFiles skips the test unless every path exists.
func NeedFiles(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s is missing; %s", p, SetupHint)
		}
	}
}

// SharedTempDir is t.TempDir() made searchable by others (0755, and its
// parent), so PHP-FPM's workers, running as www-data, reach the site.
func SharedTempDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	for _, p := range []string{filepath.Dir(d), d} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// WebUser is who PHP runs as: www-data when the test runs as root (as
// Debian runs it), else the test's own user; ok is false in that case.
func WebUser(t *testing.T) (uid, gid int, ok bool) {
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

// Must fails the test on err.
func Must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// MariaDB is a MariaDB server the test started on a socket of its own,
// without networking.
type MariaDB struct {
	Tools   Tools
	Datadir string
	Sock    string
	*Daemon
}

// StartMariaDB makes a new data directory and starts mariadbd on sock;
// root logs in over the socket without a password.
func StartMariaDB(t *testing.T, tools Tools, sock string) *MariaDB {
	t.Helper()
	dir := t.TempDir()
	m := &MariaDB{Tools: tools, Datadir: filepath.Join(dir, "data"), Sock: sock}
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	install := exec.Command(tools.InstallDB, "--no-defaults", "--datadir="+m.Datadir, "--user="+me.Username,
		"--auth-root-authentication-method=normal", "--skip-test-db")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, Tail(out))
	}
	m.Daemon = StartDaemon(t, "mariadbd", filepath.Join(dir, "mariadbd.log"), exec.Command(tools.MariaDBd, "--no-defaults",
		"--datadir="+m.Datadir, "--socket="+sock, "--skip-networking", "--pid-file="+filepath.Join(dir, "mariadbd.pid"),
		"--user="+me.Username, "--innodb-buffer-pool-size=32M"))
	WaitFor(t, "mariadbd", m.Daemon, func() bool { return exec.Command(tools.Client, m.clientArgs("-e", "SELECT 1")...).Run() == nil })
	return m
}

// clientArgs are the arguments of the client as root, then extra.
func (m *MariaDB) clientArgs(extra ...string) []string {
	return append([]string{"--no-defaults", "--socket=" + m.Sock, "-uroot"}, extra...)
}

// Client is the command line of the client as root: what a
// resurrection script's MYSQL is.
func (m *MariaDB) Client() string {
	return fmt.Sprintf("%s --no-defaults --socket=%s -uroot", m.Tools.Client, m.Sock)
}

// DumpCommand is the dump an admin gives the module for database db:
// one row a line, one consistent snapshot, then extra (--skip-dump-date
// for a dump without its date).
func (m *MariaDB) DumpCommand(db string, extra ...string) string {
	return strings.Join(append([]string{m.Tools.Dump, "--no-defaults", "--socket=" + m.Sock, "-uroot", "--single-transaction", "--skip-extended-insert"}, append(extra, db)...), " ")
}

// SQL runs statements as root and returns what they printed.
func (m *MariaDB) SQL(t *testing.T, stmts string) string {
	t.Helper()
	out, err := exec.Command(m.Tools.Client, m.clientArgs("-N", "-e", stmts)...).CombinedOutput()
	if err != nil {
		t.Fatalf("mariadb: %v\n%s", err, out)
	}
	return string(out)
}

// SQLQuote quotes s as a MariaDB string literal.
func SQLQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

// PHPFPM is a PHP-FPM master the test started, listening on Sock.
type PHPFPM struct {
	Sock string
	*Daemon
}

// StartPHPFPM starts PHP-FPM with a configuration of its own: one pool
// of four workers as the web user, on a socket in a new directory.
func StartPHPFPM(t *testing.T, tools Tools) *PHPFPM {
	t.Helper()
	dir := SharedTempDir(t)
	p := &PHPFPM{Sock: filepath.Join(dir, "fpm.sock")}
	uid, gid, _ := WebUser(t)
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
`, dir, u.Username, g.Name, p.Sock)
	path := filepath.Join(dir, "fpm.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	p.Daemon = StartDaemon(t, "php-fpm", filepath.Join(dir, "fpm.log"), exec.Command(tools.FPM, "--nodaemonize", "--fpm-config", path))
	WaitFor(t, "php-fpm", p.Daemon, func() bool {
		c, err := net.Dial("unix", p.Sock)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return p
}

// RunAs runs argv in dir as the web user (when root) and fails the test
// on error; it returns the standard output.
func RunAs(t *testing.T, dir string, argv ...string) []byte {
	t.Helper()
	return RunAsWithInput(t, dir, nil, argv...)
}

// RunAsWithInput is RunAs with stdin as the command's standard input.
func RunAsWithInput(t *testing.T, dir string, stdin []byte, argv ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	if uid, gid, ok := WebUser(t); ok {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, Tail(stderr.Bytes()))
	}
	return out
}
