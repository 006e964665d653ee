package injector

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/proctest"
)

// hangingDump is a shell script for a dump that never ends: it starts a
// background job, writes the job's pid to DIR/bgpid and its own (the
// process group's id when the dump has a group of its own) to DIR/pid,
// then waits forever.
func hangingDump(dir string) string {
	return fmt.Sprintf("sleep 1000 & echo $! > %[1]s/bgpid; echo $$ > %[1]s/pid.tmp; mv %[1]s/pid.tmp %[1]s/pid; sleep 1000", dir)
}

// TestDumpTimeoutKillsGroup: a dump that outlives its timeout is killed
// with everything it started; a background job of the shell does not
// live on reparented to init.
func TestDumpTimeoutKillsGroup(t *testing.T) {
	dir := t.TempDir()
	o := DefaultOptions()
	o.DumpTimeout = 300 * time.Millisecond
	start := time.Now()
	_, err := o.runDump(context.Background(), Dump{Name: "db", Command: hangingDump(dir)}, dir, map[string]dumpInfo{}, stateKey("k"))
	if !errors.Is(err, ErrDump) || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("got %v, want a timed-out ErrDump", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the dump took %v to stop", took)
	}
	assertDumpGone(t, dir)
}

// TestDumpCancelKillsGroup: cancelling the run's context kills the dump's
// whole process group and returns the context's cause, not ErrDump.
func TestDumpCancelKillsGroup(t *testing.T) {
	dir := t.TempDir()
	o := DefaultOptions()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		waitForFile(filepath.Join(dir, "pid"))
		cancel()
	}()
	_, err := o.runDump(ctx, Dump{Name: "db", Command: hangingDump(dir)}, dir, map[string]dumpInfo{}, stateKey("k"))
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrDump) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	assertDumpGone(t, dir)
}

func waitForFile(path string) {
	for i := 0; i < 500; i++ {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// assertDumpGone fails unless, within a few seconds, neither the
// background job of a hangingDump in dir nor any other process of the
// dump's group is alive (zombies aside: init reaps them in its own time).
// What is left is killed.
func assertDumpGone(t *testing.T, dir string) {
	t.Helper()
	pgid, bg := readPid(t, filepath.Join(dir, "pid")), readPid(t, filepath.Join(dir, "bgpid"))
	if left := proctest.WaitGone(pgid, bg); len(left) > 0 {
		t.Fatalf("processes %v the dump started are still running", left)
	}
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}
