package injector

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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
	var left []int
	for i := 0; i < 50; i++ {
		left = liveGroupMembers(pgid)
		if alive(bg) && !slices.Contains(left, bg) {
			left = append(left, bg)
		}
		if len(left) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, pid := range left {
		syscall.Kill(pid, syscall.SIGKILL) // leave nothing behind for the next tests
	}
	t.Fatalf("processes %v the dump started are still running", left)
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

// alive reports whether pid is a process that is not a zombie.
func alive(pid int) bool {
	state, _, ok := procStat(strconv.Itoa(pid))
	return ok && state != "Z"
}

// liveGroupMembers lists the processes of group pgid that are not zombies.
func liveGroupMembers(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, g, ok := procStat(e.Name()); ok && state != "Z" && g == pgid {
			out = append(out, pid)
		}
	}
	return out
}

// procStat reads a process's state and process group from /proc/PID/stat
// ("pid (comm) state ppid pgrp …").
func procStat(pid string) (state string, pgrp int, ok bool) {
	raw, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return "", 0, false
	}
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 3 {
		return "", 0, false
	}
	pgrp, _ = strconv.Atoi(fields[2])
	return fields[0], pgrp, true
}
