package injector

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewStateOnInjectedPagesWarns: a run whose state directory knows no
// generation, on pages that already carry one (a deploy from a fresh
// checkout that lost the state of the run before), warns, naming that
// generation; the run after it, with the same state, does not.
func TestNewStateOnInjectedPagesWarns(t *testing.T) {
	f := newFixture(t, 8, 3)
	first, err := Run(context.Background(), f.options())
	if err != nil {
		t.Fatal(err)
	}
	if first.UnknownGeneration != "" {
		t.Fatalf("first run: unknown generation %s", first.UnknownGeneration)
	}
	f.write(t, "src/app/version.txt", "v2")
	o := f.options()
	o.StateDir = filepath.Join(f.dir, "fresh-state")
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.UnknownGeneration != first.Generation {
		t.Errorf("unknown generation %q, want %s", res.UnknownGeneration, first.Generation)
	}
	if want := "the state directory " + o.StateDir + " knows no generation, but the site's root page carries generation " + first.Generation; !strings.Contains(strings.Join(res.Warnings, "\n"), want) {
		t.Errorf("warnings %q, want %q", res.Warnings, want)
	}
	again, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if again.UnknownGeneration != "" || strings.Contains(strings.Join(again.Warnings, "\n"), "knows no generation") {
		t.Errorf("same state again: unknown %q, warnings %q", again.UnknownGeneration, again.Warnings)
	}
}
