package injector

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestProgress: a run reports its phases in order, packing counts every
// content byte, writing counts the pages, and the last report is done.
func TestProgress(t *testing.T) {
	f := newFixture(t, 8, 3)
	f.write(t, "src/app/big.txt", strings.Repeat("compressible ", 3<<20/13+1))
	o := f.options()
	o.Dumps = []Dump{{Name: "db", Command: "echo 'INSERT 1;'"}}
	var reports []Progress
	o.Progress = func(p Progress) { reports = append(reports, p) }
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	var phases []Phase
	var lastPack, lastWrite Progress
	for _, p := range reports {
		if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
			phases = append(phases, p.Phase)
		}
		switch p.Phase {
		case PhasePack:
			lastPack = p
		case PhaseWrite:
			lastWrite = p
		}
	}
	want := []Phase{PhaseCollect, PhaseDump, PhasePack, PhasePlan, PhaseSave, PhaseWrite, PhaseDone}
	if !slices.Equal(phases, want) {
		t.Errorf("phases %v, want %v", phases, want)
	}
	if lastPack.Total < 3<<20 || lastPack.Done != lastPack.Total {
		t.Errorf("last packing report %+v, want every byte of at least 3 MiB", lastPack)
	}
	if lastWrite.Total != 9 || lastWrite.Done != 8 {
		t.Errorf("last writing report %+v, want page 9 of 9 (Done counts the pages before it)", lastWrite)
	}
}
