package capture_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/capture"

	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
)

// TestRequestCapturesSourcesFailed: when no source can be read, no plan
// is made (it would take the archives for empty) and the error wraps
// ErrSourcesFailed, naming the source; when one of two fails, the plan
// is made and Warnings name the failed one.
func TestRequestCapturesSourcesFailed(t *testing.T) {
	w := newCaptureWorld(t, archivetest.SPNConfig{}, nil)
	missing := source.WARCSource{Path: filepath.Join(t.TempDir(), "nonexistent")}
	o := w.options(t, true, "")
	good := o.Status.Sources
	o.Status.Sources = []source.Source{missing}
	rep, err := requestCaptures(t, o)
	if !errors.Is(err, capture.ErrSourcesFailed) || !strings.Contains(err.Error(), "source "+missing.Name()+": cannot be read") {
		t.Fatalf("every source failed: %v", err)
	}
	if rep != nil && len(rep.Plan) != 0 {
		t.Fatalf("planned %+v with no archive read", rep.Plan)
	}
	o.Status.Sources = append(good, missing)
	rep, err = requestCaptures(t, o)
	if err != nil || len(rep.Plan) == 0 || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "source "+missing.Name()+": cannot be read") {
		t.Fatalf("one source failed: %v, warnings %q, plan %+v", err, rep.Warnings, rep.Plan)
	}
	o.Status.Sources = good
	if rep, err = requestCaptures(t, o); err != nil || len(rep.Warnings) != 0 {
		t.Fatalf("no source failed: %v, warnings %q", err, rep.Warnings)
	}
}
