package injector

import (
	"context"
	"io"

	"github.com/lazarus-preserve/lazarus/internal/bundle"
)

// Phase is what a run is doing.
type Phase string

// The phases of a run, in order; a run that finds nothing changed and a
// dry run skip some.
const (
	PhaseCollect Phase = "collect" // listing the includes; Done/Total count includes
	PhaseDump    Phase = "dump"    // running dump Name; Done/Total count dumps
	PhasePack    Phase = "pack"    // packing and encrypting; Done/Total count content bytes
	PhasePlan    Phase = "plan"    // discovering pages, placing blocks, signing the manifest
	PhaseSave    Phase = "save"    // saving the new state: the last moment a done ctx stops the run
	PhaseWrite   Phase = "write"   // the state is saved; encoding blocks and writing outputs (only Options.Abort stops it); Done/Total count pages
	PhaseDone    Phase = "done"    // finished (also after an error)
)

// Progress says how far a run is. Done and Total count the phase's unit;
// Total is 0 when unknown. Reports come often (about every MiB packed,
// every page written): a printer should throttle them.
type Progress struct {
	Phase       Phase
	Name        string // the include or dump at hand, if any
	Done, Total int64
}

// progress reports p if the caller asked for reports.
func (o *Options) progress(p Progress) {
	if o.Progress != nil {
		o.Progress(p)
	}
}

// progressStep is how many bytes are packed between two reports.
const progressStep = 1 << 20

// packMeter counts the content bytes packed and reports them.
type packMeter struct {
	o           *Options
	done, total int64
	reported    int64
}

// add counts n more bytes, reporting at every progressStep.
func (m *packMeter) add(n int) {
	m.done += int64(n)
	if m.done-m.reported >= progressStep {
		m.reported = m.done
		m.o.progress(Progress{Phase: PhasePack, Done: m.done, Total: m.total})
	}
}

// watch returns entries whose contents stop reading with the context's
// cause once ctx is done, so packing a large tree stops promptly, and
// count what they read in m.
func watch(ctx context.Context, entries []bundle.Entry, m *packMeter) []bundle.Entry {
	out := make([]bundle.Entry, len(entries))
	for i, e := range entries {
		out[i] = e
		if e.Open == nil {
			continue
		}
		m.total += e.Size
		open := e.Open
		out[i].Open = func() (io.ReadCloser, error) {
			if err := ctx.Err(); err != nil {
				return nil, context.Cause(ctx)
			}
			rc, err := open()
			if err != nil {
				return nil, err
			}
			return &watchedReader{ReadCloser: rc, ctx: ctx, m: m}, nil
		}
	}
	return out
}

// watchedReader reads until its context is done and counts what it reads.
type watchedReader struct {
	io.ReadCloser
	ctx context.Context
	m   *packMeter
}

// Read reads from the underlying reader unless the context is done.
func (w *watchedReader) Read(p []byte) (int, error) {
	if err := w.ctx.Err(); err != nil {
		return 0, context.Cause(w.ctx)
	}
	n, err := w.ReadCloser.Read(p)
	w.m.add(n)
	return n, err
}
