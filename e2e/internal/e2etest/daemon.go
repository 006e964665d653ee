package e2etest

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// Daemon is a server process a test started (mariadbd, php-fpm,
// postgres); Stop ends it and waits.
type Daemon struct {
	Name string
	Log  string // the file its standard output and error go to
	cmd  *exec.Cmd
}

// StartDaemon starts cmd in a process group of its own (keeping any
// credential cmd.SysProcAttr sets), its standard output and error in the
// file log, and stops it when the test ends.
func StartDaemon(t testing.TB, name, log string, cmd *exec.Cmd) *Daemon {
	t.Helper()
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	d := &Daemon{Name: name, Log: log, cmd: cmd}
	t.Cleanup(d.Stop)
	return d
}

// Stop sends SIGTERM to the daemon's process group, then SIGKILL if it
// is still there after 20 s, and waits for it; a second call does
// nothing.
func (d *Daemon) Stop() {
	if d.cmd == nil {
		return
	}
	pgid := d.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { d.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-done
	}
	d.cmd = nil
}

// WaitFor polls ok every 100 ms for up to a minute, and fails the test
// with the end of the daemon's log if it never holds.
func WaitFor(t testing.TB, what string, d *Daemon, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !ok(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(d.Log)
			t.Fatalf("%s not ready after a minute; %s's log ends:\n%s", what, d.Name, Tail(log))
		}
	}
}
