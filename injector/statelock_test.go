package injector

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestStateLockFreedWhileCopiesRemain: releasing the state directory's
// lock frees it even while another descriptor of the same open file
// remains (a child forked by another goroutine holds one until it
// execs): the next run can take it.
func TestStateLockFreedWhileCopiesRemain(t *testing.T) {
	dir := t.TempDir()
	release, err := lock(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	copyFD := -1
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	want := filepath.Join(dir, "lock")
	for _, e := range entries {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && target == want {
			var fd int
			if _, err := fmt.Sscan(e.Name(), &fd); err == nil {
				if copyFD, err = syscall.Dup(fd); err != nil {
					t.Fatal(err)
				}
			}
			break
		}
	}
	if copyFD < 0 {
		t.Fatal("the lock file's descriptor was not found")
	}
	defer syscall.Close(copyFD)
	release()
	again, err := lock(dir, false)
	if err != nil {
		t.Fatalf("after release, with a copy of the descriptor open: %v", err)
	}
	again()
}
