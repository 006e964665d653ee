package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/keys"
)

// TestInjectInterrupted: Ctrl-C (SIGINT) stops inject promptly, whether it
// is packing (outside any dump) or waiting for a dump, whose whole process
// group is killed; it exits 130 and leaves the site and the state as they
// were.
func TestInjectInterrupted(t *testing.T) {
	bin, err := exec.LookPath("lazarus") // testscript.Main put the command on PATH
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		dump  string
		setup func(t *testing.T, dir string)
		delay time.Duration // after the ready file appears
	}{
		// Expected: packing 1 GiB (sparse, so it costs no disk) is cut short.
		"while packing": {"db=echo $$ > ready", func(t *testing.T, dir string) {
			f, err := os.Create(filepath.Join(dir, "app", "big.bin"))
			if err == nil {
				err = errors.Join(f.Truncate(1<<30), f.Close())
			}
			if err != nil {
				t.Fatal(err)
			}
		}, 500 * time.Millisecond},
		// Expected: the dump and its background job are killed.
		"during a dump": {"db=sh dump.sh", func(t *testing.T, dir string) {
			script := "sleep 1000 &\necho $! > bgpid\nread -r _ _ _ _ pgid _ < /proc/$$/stat\necho \"$pgid\" > ready.tmp\nmv ready.tmp ready\nsleep 1000\n"
			writeTestFile(t, filepath.Join(dir, "dump.sh"), script)
		}, 0},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := interruptSite(t)
			c.setup(t, dir)
			before := treeState(t, filepath.Join(dir, "site"))
			cmd := exec.Command(bin, "inject", "--site", "site", "--site-url", "https://example.org/", "--key", "keys/server.key",
				"--state", "state", "--include", "app", "--dump", c.dump)
			cmd.Dir = dir
			p := startProc(t, cmd)
			ready := filepath.Join(dir, "ready")
			p.waitFile(t, ready, 30*time.Second, "the run never got ready")
			time.Sleep(c.delay)
			p.signal(t, 0, os.Interrupt)
			err := p.wait(t, 30*time.Second)
			var exitErr *exec.ExitError
			if took := time.Since(p.signalled); !errors.As(err, &exitErr) || exitErr.ExitCode() != exitInterrupted || took > 3*time.Second {
				t.Errorf("exit %v after %v, want %d within 3s; stderr:\n%s", err, took.Round(time.Millisecond), exitInterrupted, p.stderr.String())
			}
			stderr := &p.stderr
			if !strings.Contains(stderr.String(), "lazarus: error: interrupted (interrupt signal received); nothing was changed") {
				t.Errorf("stderr:\n%s", stderr.String())
			}
			if after := treeState(t, filepath.Join(dir, "site")); after != before {
				t.Error("the site changed")
			}
			if _, err := os.Stat(filepath.Join(dir, "state", "state.json")); !os.IsNotExist(err) {
				t.Errorf("state.json: %v, want none", err)
			}
			if name == "during a dump" {
				pgid, _ := os.ReadFile(ready)
				bg, _ := os.ReadFile(filepath.Join(dir, "bgpid"))
				if left := waitDumpGone(readPid(string(pgid)), readPid(string(bg))); len(left) > 0 {
					t.Errorf("dump processes %v still running", left)
				}
			}
		})
	}
}

// interruptSite makes keys, a small site and an include in a temporary
// directory.
func interruptSite(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if _, _, err := keys.WriteNewPair(filepath.Join(dir, "keys"), true, time.Now()); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(dir, "app", "index.php"), "<?php echo 'hello';\n")
	links := ""
	for i := range 8 {
		writeTestFile(t, filepath.Join(dir, "site", fmt.Sprintf("p%d.html", i)), fmt.Sprintf("<html><body><p>%d</p></body></html>\n", i))
		links += fmt.Sprintf("<a href=\"p%d.html\">%d</a>\n", i, i)
	}
	writeTestFile(t, filepath.Join(dir, "site", "index.html"), "<html><body>\n"+links+"</body></html>\n")
	return dir
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// treeState lists every file under root with its size, mtime and hash.
func treeState(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		raw, err := os.ReadFile(p)
		fmt.Fprintf(&b, "%s %d %d %x\n", p, info.Size(), info.ModTime().UnixNano(), raw)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRecoverInterrupted: Ctrl-C stops recover while it waits on a slow
// archive: exit 130, and the message says how to resume.
func TestRecoverInterrupted(t *testing.T) {
	bin, err := exec.LookPath("lazarus")
	if err != nil {
		t.Fatal(err)
	}
	asked := make(chan struct{}, 1)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case asked <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	}))
	defer slow.Close()
	dir := interruptSite(t)
	cmd := exec.Command(bin, "recover", "--url", "https://example.org/", "--source", "wayback="+slow.URL, "--key", "keys/owner.key", "--out", "out")
	cmd.Dir = dir
	p := startProc(t, cmd)
	p.waitFor(t, func() bool {
		select {
		case <-asked:
			return true
		default:
			return false
		}
	}, 30*time.Second, "the archive was never asked")
	p.signal(t, 0, os.Interrupt)
	err = p.wait(t, 30*time.Second)
	var exitErr *exec.ExitError
	if took := time.Since(p.signalled); !errors.As(err, &exitErr) || exitErr.ExitCode() != exitInterrupted || took > 3*time.Second ||
		!strings.Contains(p.stderr.String(), "run the same command again to resume") {
		t.Fatalf("exit %v after %v; stderr:\n%s", err, took.Round(time.Millisecond), p.stderr.String())
	}
}

// TestInjectInterruptedWhileWriting: real signals that come after inject
// saved its new state, while it writes the pages of a 300-page site. The
// run pauses at page 100 (pauseWrite), a hundred pages staged as
// temporary files beside them, until the test's signals have come.
func TestInjectInterruptedWhileWriting(t *testing.T) {
	bin, err := exec.LookPath("lazarus")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		signals []os.Signal
		code    int
		stderr  []string
	}{
		// Expected: the run finishes the pages, says so, and succeeds.
		"once": {[]os.Signal{os.Interrupt}, exitOK, []string{
			"lazarus: interrupt signal received after the new state was saved: finishing the pages; a second Ctrl-C (or SIGTERM) stops between two pages, and the next run completes them",
			"lazarus: warning: interrupt signal received after the new state was saved: the run finished writing the pages instead of stopping, and succeeded",
		}},
		// Expected: the second Ctrl-C stops it between two pages; the
		// staged pages are removed, none is changed, the state is saved.
		"twice": {[]os.Signal{os.Interrupt, os.Interrupt}, exitInterrupted, []string{
			"lazarus: stopping between two pages and removing the temporary files",
			"lazarus: error: interrupted again (interrupt signal received): stopped while writing the outputs of generation ",
			"no temporary file left); the state is saved and the next run completes them",
			"lazarus: hint: run the same command again to complete the pages",
		}},
		// Expected: as twice, with SIGTERM first (systemctl stop): 143.
		"SIGTERM then Ctrl-C": {[]os.Signal{syscall.SIGTERM, os.Interrupt}, exitTerminated, []string{
			"lazarus: error: interrupted again (interrupt signal received): stopped while writing",
		}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := interruptSiteN(t, 300)
			site := filepath.Join(dir, "site")
			before := treeState(t, site)
			// Filled pages (--redundancy max): every page is rewritten,
			// so the run is far from done at page 100.
			args := []string{"inject", "--site", "site", "--site-url", "https://example.org/", "--key", "keys/server.key", "--state", "state", "--include", "app", "--redundancy", "max"}
			cmd := exec.Command(bin, args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "LAZARUS_TEST_PAUSE_WRITE="+dir)
			p := startProc(t, cmd)
			p.waitFile(t, filepath.Join(dir, "ready"), 60*time.Second, "the run never reached page 100")
			if temps := tempFilesIn(t, site); len(temps) < 50 {
				t.Fatalf("%d pages staged at page 100, want about 100", len(temps))
			}
			p.signal(t, 200*time.Millisecond, c.signals...)
			writeTestFile(t, filepath.Join(dir, "go"), "")
			err := p.wait(t, 30*time.Second)
			stdout, stderr := &p.stdout, &p.stderr
			if code := exitCode(err); code != c.code {
				t.Fatalf("exit %v, want %d; stderr:\n%s", err, c.code, stderr.String())
			}
			for _, want := range c.stderr {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
			if temps := tempFilesIn(t, site); len(temps) > 0 {
				t.Fatalf("%d temporary files left in the site, such as %s", len(temps), temps[0])
			}
			if _, err := os.Stat(filepath.Join(dir, "state", "state.json")); err != nil {
				t.Fatalf("the state was not saved: %v", err)
			}
			if c.code == exitOK {
				if !strings.Contains(stdout.String(), "(new)") || !strings.Contains(stdout.String(), "301 files written") {
					t.Errorf("stdout:\n%s", stdout.String())
				}
				return
			}
			if after := treeState(t, site); after != before {
				t.Error("pages changed")
			}
			// The next run completes the pages, and says so.
			next := exec.Command(bin, args...)
			next.Dir = dir
			out, err := next.Output()
			if err != nil || !strings.Contains(string(out), "(unchanged; completed the pages an interrupted run left unwritten)") ||
				!strings.Contains(string(out), "301 files written") {
				t.Fatalf("next run: %v\n%s", err, out)
			}
		})
	}
}

// interruptSiteN is interruptSite with n linked pages.
func interruptSiteN(t *testing.T, n int) string {
	t.Helper()
	dir := interruptSite(t)
	links := ""
	for i := range n {
		writeTestFile(t, filepath.Join(dir, "site", fmt.Sprintf("p%d.html", i)), fmt.Sprintf("<html><body><p>%d</p></body></html>\n", i))
		links += fmt.Sprintf("<a href=\"p%d.html\">%d</a>\n", i, i)
	}
	writeTestFile(t, filepath.Join(dir, "site", "index.html"), "<html><body>\n"+links+"</body></html>\n")
	return dir
}

// tempFilesIn lists inject's temporary files under root.
func tempFilesIn(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".lazarus-tmp-") {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// exitCode is a finished command's exit code; -1 if a signal killed it.
func exitCode(err error) int {
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// installTestHooks sets the CLI's test hooks that the environment asks
// for, in the lazarus command testscript.Main runs:
// LAZARUS_TEST_PAUSE_WRITE=DIR pauses inject's write phase (pauseWrite).
// LAZARUS_TEST_PAUSE_DEMO=DIR pauses the demo once its server runs.
func installTestHooks() {
	if dir := os.Getenv("LAZARUS_TEST_PAUSE_WRITE"); dir != "" {
		testHookInject = func(o *injector.Options) { o.Progress = pauseWrite(o.Progress, dir) }
	}
	if dir := os.Getenv("LAZARUS_TEST_PAUSE_DEMO"); dir != "" {
		demoServer = func(site, bundle, storage string) (string, func() error, error) {
			url, stop, err := serveWithCaddy(site, bundle, storage)
			pause(dir)
			return url, stop, err
		}
	}
}

// pauseWrite wraps a progress function: at page 100 of the write phase it
// creates the file DIR/ready and waits (30 s at most) until DIR/go
// exists, so a test's signals land there however fast the run. It
// neither catches nor blocks signals: what they do is the CLI's doing.
func pauseWrite(next func(injector.Progress), dir string) func(injector.Progress) {
	return func(p injector.Progress) {
		next(p)
		if p.Phase != injector.PhaseWrite || p.Done != 100 {
			return
		}
		pause(dir)
	}
}

// pause creates DIR/ready and waits until DIR/go exists, 30 s at most.
func pause(dir string) {
	os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "go")); err == nil {
			return
		}
	}
}
