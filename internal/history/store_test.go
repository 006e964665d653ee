package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestDirFIFO: a FIFO where a value belongs is
// refused at once, by Get and by Load, instead of blocking on its open.
func TestDirFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "records"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "records", "x.jsonl"), 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "records", "y"), 0o600); err != nil { // listed, as a directory might be
		t.Fatal(err)
	}
	st := Dir(dir)
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := st.Get(ctx, "records/x.jsonl"); err == nil {
			done <- errors.New("Get of a FIFO succeeded")
			return
		}
		if keys, err := st.List(ctx, "records/y"); len(keys) != 0 {
			done <- fmt.Errorf("List of a FIFO: %v, %v", keys, err)
			return
		}
		ix, err := Load(ctx, st)
		switch {
		case err != nil:
			done <- err
		case ix.Skipped != 1: // x.jsonl; y lists as empty
			done <- errors.New("the FIFO was not counted as skipped")
		default:
			done <- nil
		}
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Get or Load blocked on a FIFO")
	}
}

// TestDirSymlinkOut: a records directory that is a symbolic link to a
// directory outside the store is neither written through nor read
// through.
func TestDirSymlinkOut(t *testing.T) {
	ctx := context.Background()
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.json"), []byte(`{"digest":"x"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "records")); err != nil {
		t.Fatal(err)
	}
	st := Dir(dir)
	if err := st.Put(ctx, "records/new.json", []byte("{}")); err == nil {
		t.Error("Put wrote through a symbolic link out of the store")
	}
	if _, err := os.Stat(filepath.Join(outside, "new.json")); err == nil {
		t.Error("a file was created outside the store")
	}
	if _, err := st.Get(ctx, "records/secret.json"); err == nil {
		t.Error("Get read through a symbolic link out of the store")
	}
	if keys, err := st.List(ctx, "records"); len(keys) != 0 {
		t.Errorf("List followed a symbolic link out of the store: %v, %v", keys, err)
	}
}

// TestDirCancelled: a cancelled context stops every operation.
func TestDirCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	st := Dir(t.TempDir())
	if err := st.Put(ctx, "records/a.json", nil); err == nil {
		t.Error("Put ran with a cancelled context")
	}
	if _, err := st.Get(ctx, "records/a.json"); err != context.Canceled {
		t.Errorf("Get: %v", err)
	}
	if _, err := st.List(ctx, "records"); err != context.Canceled {
		t.Errorf("List: %v", err)
	}
}
