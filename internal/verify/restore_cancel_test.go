package verify_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/verify"
)

// TestVerifyRestoreCancelled: a cancellation during the trial restore
// stops it, Verify returns the context's error, and the temporary
// directory is empty.
func TestVerifyRestoreCancelled(t *testing.T) {
	s := sitetest.ServedInjected(t, nil)
	tmp := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := s.VerifyOptions(s.Owner, true)
	o.TempDir = tmp
	o.Progress = func(p verify.Progress) {
		if p.Phase == "restore" {
			cancel()
		}
	}
	rep, err := verify.Run(ctx, o)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v (restore %+v), want context.Canceled", err, rep.Restore)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("the cancelled restore left %d entries in the temporary directory", len(left))
	}
}
