package main

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/proctest"
	"github.com/rogpeppe/go-internal/testscript"
)

// dumpgone PGID_FILE BGPID_FILE: within a few seconds, no live process is
// left of the dump whose process group id and background job's pid are in
// the files (zombies aside: init reaps them in its own time). The group
// must be the dump's own, not the one this test runs in. Leftovers are
// killed, one by one.
func cmdDumpGone(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: dumpgone PGID_FILE BGPID_FILE")
	}
	pgid, bg := readPid(ts.ReadFile(args[0])), readPid(ts.ReadFile(args[1]))
	if left := waitDumpGone(pgid, bg); len(left) > 0 {
		ts.Fatalf("processes %v the dump started are still running", left)
	}
	if pgid == syscall.Getpgrp() {
		ts.Fatalf("the dump ran in the test's own process group %d, not in one of its own", pgid)
	}
}

func readPid(s string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(s))
	return n
}

// waitDumpGone waits until neither bg nor any process of group pgid is
// alive; it returns those left, killed.
func waitDumpGone(pgid, bg int) []int { return proctest.WaitGone(pgid, bg) }

// proc is a lazarus run a test interrupts: started, waited for in the
// background, its output kept.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan error // Wait's result
	signalled      time.Time  // when signal sent the first signal
}

// startProc starts cmd, keeping its stdout and stderr.
func startProc(t *testing.T, cmd *exec.Cmd) *proc {
	t.Helper()
	p := &proc{cmd: cmd, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = &p.stdout, &p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	return p
}

// waitFile waits up to timeout for path to exist (the run's "ready"
// file); see waitFor.
func (p *proc) waitFile(t *testing.T, path string, timeout time.Duration, failure string) {
	t.Helper()
	p.waitFor(t, func() bool {
		_, err := os.Stat(path)
		return err == nil
	}, timeout, failure)
}

// waitFor waits up to timeout for ready to hold. If the run ends first
// or the time is up, the run is killed and the test fails with failure
// and the run's stderr.
func (p *proc) waitFor(t *testing.T, ready func() bool, timeout time.Duration, failure string) {
	t.Helper()
	for deadline := time.Now().Add(timeout); !ready(); {
		if time.Now().After(deadline) {
			p.kill()
			t.Fatalf("%s; stderr:\n%s", failure, p.stderr.String())
		}
		select {
		case err := <-p.done:
			p.done <- err
			t.Fatalf("%s (it ended: %v); stderr:\n%s", failure, err, p.stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// signal sends sigs one by one, sleeping gap after each (two signals in
// a row may merge into one).
func (p *proc) signal(t *testing.T, gap time.Duration, sigs ...os.Signal) {
	t.Helper()
	p.signalled = time.Now()
	for _, s := range sigs {
		if err := p.cmd.Process.Signal(s); err != nil {
			t.Fatal(err)
		}
		time.Sleep(gap)
	}
}

// wait waits up to timeout for the run to end and returns Wait's error;
// if it does not end, it is killed and the test fails.
func (p *proc) wait(t *testing.T, timeout time.Duration) error {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		return err
	case <-time.After(timeout):
		p.kill()
		t.Fatalf("still running %v after the signal; stderr:\n%s", timeout, p.stderr.String())
		return nil
	}
}

// kill kills the run and waits a little for it to end (so its output is
// whole, unless a child it left holds the pipes).
func (p *proc) kill() {
	p.cmd.Process.Kill()
	select {
	case err := <-p.done:
		p.done <- err
	case <-time.After(5 * time.Second):
	}
}
