package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

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

// waitDumpGone waits up to 5 s until neither bg nor any process of group
// pgid is alive; it returns those left, killed. The group is not searched
// when it is the test's own.
func waitDumpGone(pgid, bg int) []int {
	var left []int
	for i := 0; i < 50; i++ {
		left = nil
		if pgid > 1 && pgid != syscall.Getpgrp() {
			left = liveGroupMembers(pgid)
		}
		if alive(bg) && !slices.Contains(left, bg) {
			left = append(left, bg)
		}
		if len(left) == 0 {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, pid := range left {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	return left
}

// alive reports whether pid is a process that is not a zombie.
func alive(pid int) bool {
	state, _, ok := procStat(strconv.Itoa(pid))
	return pid > 1 && ok && state != "Z"
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
