package recover

import (
	"context"
	"sync/atomic"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// Extracting early. Once a verified manifest of the site is the newest
// wanted, its data segments are extracted while captures are still being
// read, each as its stripes are rebuilt (codec.Assembler.StageEarly),
// into a staging directory inside the output directory with every check
// of an extraction: writing the files overlaps reading the pages. Nothing
// is moved into place then. restore commits an early extraction only if
// it is of the very segment version it chose, with the same declared tar
// size, and was read whole with the segment matching its id: what
// restore then does is what extracting the segment after reading every
// capture would have done. Every other early extraction (a newer
// generation found since, a segment never completed, a contested stripe)
// is stopped and removed, and restore extracts as before.

// extractEarly turns early extraction on; tests turn it off to compare.
var extractEarly = true

// earlyCommits counts the early extractions restore committed, for tests.
var earlyCommits atomic.Int64

// early is one data segment being extracted early.
type early struct {
	layout  block.Layout
	tarSize int64
	cancel  context.CancelFunc
	done    chan struct{} // closed once staged, or failed
	staged  *codec.Staged // once done: nil if it failed or was taken
}

// follow starts extracting early the data segments of the generation the
// session now targets, if it changed: the newest wanted manifest of the
// site (see newest). Those of the previous target are stopped.
func (s *session) follow(ctx context.Context) {
	if !extractEarly {
		return
	}
	m := s.newest()
	if m == nil || m == s.followed || !s.o.namesSite(m) {
		return
	}
	s.stopEarly()
	s.followed = m
	for i := range m.Manifest.Segments {
		seg := &m.Manifest.Segments[i]
		if seg.Kind == "data" {
			s.startEarly(ctx, m, seg)
		}
	}
}

// startEarly starts extracting segment seg of m early.
func (s *session) startEarly(ctx context.Context, m *manifest.Signed, seg *manifest.Segment) {
	l, err := codec.SegmentLayout(m, seg)
	if err != nil {
		return // restore reports it
	}
	e := &early{layout: l, tarSize: seg.TarSize, done: make(chan struct{})}
	ctx, e.cancel = context.WithCancel(ctx)
	opts := bundle.ExtractOptions{MaxTarSize: seg.TarSize, Force: s.o.Force, Reserved: reserved(&s.o, s.o.Out)}
	go func() {
		defer close(e.done)
		if st, err := s.a.StageEarly(ctx, l, s.o.Out, opts); err == nil {
			e.staged = st
		}
	}()
	s.early = append(s.early, e)
}

// stopEarly stops every early extraction and removes what they staged.
func (s *session) stopEarly() {
	for _, e := range s.early {
		e.cancel()
		<-e.done
		if e.staged != nil {
			e.staged.Remove()
		}
	}
	s.early = nil
}

// staged returns the early extraction of t, waiting for it to end; nil
// if there is none or it failed. The caller commits or removes it.
func (s *session) staged(t target) *codec.Staged {
	for _, e := range s.early {
		if e.layout == t.layout && e.tarSize == t.tarSize {
			<-e.done
			st := e.staged
			e.staged = nil
			return st
		}
	}
	return nil
}
