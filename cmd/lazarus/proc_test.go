package main

import (
	"strconv"
	"strings"
	"syscall"

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
