// Package proctest helps tests check that processes a command started
// (a dump and its background jobs) are gone. Linux only: it reads /proc.
package proctest

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// WaitGone waits up to 5 s until neither bg nor any process of group pgid
// is alive (zombies aside: init reaps them in its own time) and returns
// the processes left, after killing them so nothing outlives the test.
// The group is not searched when it is the caller's own or pgid <= 1.
func WaitGone(pgid, bg int) []int {
	var left []int
	for i := 0; i < 50; i++ {
		left = nil
		if pgid > 1 && pgid != syscall.Getpgrp() {
			left = GroupMembers(pgid)
		}
		if Alive(bg) && !slices.Contains(left, bg) {
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

// Alive reports whether pid is a process that is not a zombie.
func Alive(pid int) bool {
	state, _, ok := stat(strconv.Itoa(pid))
	return pid > 1 && ok && state != "Z"
}

// GroupMembers lists the processes of group pgid that are not zombies.
func GroupMembers(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, g, ok := stat(e.Name()); ok && state != "Z" && g == pgid {
			out = append(out, pid)
		}
	}
	return out
}

// stat reads a process's state and process group from /proc/PID/stat
// ("pid (comm) state ppid pgrp …").
func stat(pid string) (state string, pgrp int, ok bool) {
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
