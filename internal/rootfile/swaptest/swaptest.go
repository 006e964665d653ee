// Package swaptest plays, for tests, a user who can write a directory
// where a more privileged program creates files: it keeps moving aside
// every entry the program creates there and putting a symbolic link to a
// target of its choice in its place, racing the program.
package swaptest

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
)

// Swapper is a running swapper.
type Swapper struct {
	stop  chan struct{}
	done  sync.WaitGroup
	swaps int
}

// Start swaps, in dir, every entry (file or directory) but those named
// in except for a symbolic link to target, until Stop or the end of the
// test.
func Start(t testing.TB, dir, target string, except ...string) *Swapper {
	t.Helper()
	aside := filepath.Join(dir, "aside-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(aside, 0o700); err != nil {
		t.Fatal(err)
	}
	s := &Swapper{stop: make(chan struct{})}
	s.done.Add(1)
	go s.run(dir, target, aside, except)
	t.Cleanup(func() { s.Stop() })
	return s
}

func (s *Swapper) run(dir, target, aside string, except []string) {
	defer s.done.Done()
	n := 0
	for {
		select {
		case <-s.stop:
			return
		default:
		}
		d, err := os.Open(dir)
		if err != nil {
			continue
		}
		names, _ := d.Readdirnames(-1)
		d.Close()
		for _, name := range names {
			if p := filepath.Join(dir, name); p == aside || slices.Contains(except, name) {
				continue
			}
			p := filepath.Join(dir, name)
			if info, err := os.Lstat(p); err != nil || info.Mode()&os.ModeSymlink != 0 {
				continue
			}
			n++
			if os.Rename(p, filepath.Join(aside, strconv.Itoa(n))) == nil && os.Symlink(target, p) == nil {
				s.swaps++
			}
		}
	}
}

// Stop ends the swapping and returns how many entries were swapped.
func (s *Swapper) Stop() int {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	s.done.Wait()
	return s.swaps
}
