package injector

import (
	"context"
	"fmt"
	"os"
	"sort"

	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/ignore"
)

// allOrNothingSegment is the one segment of an all-or-nothing run.
const allOrNothingSegment = "all"

// source is one segment's input and a description of where it came from.
type source struct {
	input  codec.Input
	origin []string // "include /srv/app", "dump db"
	// volatile names the dumps with volatile lines (entry name → the
	// keyed hash of the output without them; see segmentSubstance).
	volatile map[string][]byte
}

// collect gathers every include and runs every dump into files under tmp.
// Any unreadable source or failing dump aborts the run: nothing is
// silently left out. Each include's entries are named under its segment
// name (a single file keeps its own name: see Include.fileName), each
// dump's file by the dump's name, so every segment S restores as S.
//
// A dump's file gets mode 0600 and keeps the mtime recorded in dumps while
// its output is unchanged (in substance, for a dump with volatile lines),
// so an unchanged database makes no new generation; dumps is updated.
func (o *Options) collect(ctx context.Context, tmp string, dumps map[string]dumpInfo, key stateKey) ([]source, []string, error) {
	bySeg := map[string]*source{}
	var warnings []string
	seg := func(name string) *source {
		if o.AllOrNothing {
			name = allOrNothingSegment
		}
		if bySeg[name] == nil {
			bySeg[name] = &source{input: codec.Input{Name: name}}
		}
		return bySeg[name]
	}
	matcher, err := ignore.New(o.Excludes)
	if err != nil {
		return nil, nil, err
	}
	for i, in := range o.Includes {
		o.progress(Progress{Phase: PhaseCollect, Name: in.Path, Done: int64(i), Total: int64(len(o.Includes))})
		entries, warns, err := collectInclude(ctx, in, matcher)
		if err != nil {
			return nil, nil, err
		}
		for _, w := range warns {
			warnings = append(warnings, "include "+in.Path+": "+w.String())
		}
		s := seg(in.segment())
		s.input.Entries = append(s.input.Entries, entries...)
		s.origin = append(s.origin, "include "+in.Path)
	}
	for i, d := range o.Dumps {
		o.progress(Progress{Phase: PhaseDump, Name: d.Name, Done: int64(i), Total: int64(len(o.Dumps))})
		e, err := o.runDump(ctx, d, tmp, dumps, key)
		if err != nil {
			return nil, nil, err
		}
		s := seg(d.Name)
		s.input.Entries = append(s.input.Entries, e)
		s.origin = append(s.origin, "dump "+d.Name)
		if sub := dumps[d.Name].Substance; sub != nil {
			if s.volatile == nil {
				s.volatile = map[string][]byte{}
			}
			s.volatile[e.Name] = sub
		}
	}
	out := make([]source, 0, len(bySeg))
	for _, s := range bySeg {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].input.Name < out[j].input.Name })
	return out, warnings, nil
}

// collectInclude returns the entries of one include, named under its
// segment name: a directory tree (excludes applied) or a single file. A
// done ctx cuts the walk short (everything left is skipped) and returns
// its cause.
func collectInclude(ctx context.Context, in Include, m *ignore.Matcher) ([]bundle.Entry, []bundle.Warning, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, interrupted(ctx)
	}
	info, err := os.Stat(in.Path)
	if err != nil {
		return nil, nil, fmt.Errorf("include %s: %w", in.Path, err)
	}
	if !info.IsDir() {
		e, err := bundle.FileEntry(in.fileName(), in.Path)
		if err != nil {
			return nil, nil, fmt.Errorf("include %s: %w", in.Path, err)
		}
		return []bundle.Entry{e}, nil, nil
	}
	exclude := func(rel string, isDir bool) bool { return ctx.Err() != nil || m.Match(rel, isDir) }
	entries, warns, err := bundle.Collect(in.Path, in.segment(), bundle.CollectOptions{Exclude: exclude})
	if ctx.Err() != nil {
		return nil, nil, interrupted(ctx)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("include %s: %w", in.Path, err)
	}
	return entries, warns, nil
}
