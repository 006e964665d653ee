package injector

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/placement"
)

// Run performs one inject run: collect, seal, plan, sign, write. With
// unchanged inputs it makes no new generation and changes no byte on disk.
//
// Until the new state is saved, a done ctx stops the run promptly (dumps
// are killed with everything they started) and Run returns an error
// wrapping the context's cause, having changed nothing. From then on the
// run finishes writing the outputs, which are derived from the saved
// state, unless Options.Abort stops it between two files (see
// ErrWriteInterrupted); were it stopped or killed there, the next run
// completes them and says so (Report.Completed).
func Run(ctx context.Context, o Options) (*Report, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	defer o.progress(Progress{Phase: PhaseDone})
	ws, err := openWorkspace(o.StateDir, o.DryRun)
	if err != nil {
		return nil, err
	}
	defer ws.close()
	st, err := loadState(o.StateDir)
	if err != nil {
		return nil, err
	}
	r := &run{o: &o, st: st, tmp: ws.tmp, unfinished: readUnfinished(o.StateDir)}
	r.res = &Report{DryRun: o.DryRun, Segments: []SegmentReport{}, Pages: []PageReport{}, Excluded: []string{}}
	defer r.closeSealed()
	if err := r.build(ctx); err != nil {
		return nil, err
	}
	return r.res, nil
}

// run is the state of one Run.
type run struct {
	o          *Options
	st         *state
	tmp        string
	unfinished string // the generation an earlier run saved but did not finish writing, or ""
	res        *Report
	sealer     *keys.Sealer
	key        stateKey                 // keys the content hashes in the state
	newKey     bool                     // key is a new random one for commit to save
	fresh      map[string]*codec.Sealed // new segment versions by name
	listing    *pendingSegment          // a new listing segment's ciphertext, in tmp until commit
	files      []manifest.File          // the listing's files
	pages      []pageInfo
	gen        generationInfo
	old        map[string][]placement.OldRef // URL → previous generations' blocks kept
	added      map[string]int                // URL → bytes the plan adds (manifest reserve included)
	held       map[string]manifest.ID        // segment → earlier generation held on the pages (see checkShrink)
}

func (r *run) build(ctx context.Context) error {
	var err error
	if r.sealer, err = r.o.sealer(r.st); err != nil {
		return err
	}
	if r.key, r.newKey, err = r.o.loadStateKey(r.sealer); err != nil {
		return err
	}
	r.st.migrate(r.key)
	if r.st.Dumps == nil {
		r.st.Dumps = map[string]dumpInfo{}
	}
	sources, warnings, err := r.o.collect(ctx, r.tmp, r.st.Dumps, r.key)
	if err != nil {
		return err
	}
	r.res.Warnings = append(r.res.Warnings, warnings...)
	pages := r.discoverAsync()
	segs, content, err := r.seal(ctx, sources)
	found := <-pages // waited for in any case: nothing reads the site after Run
	if err != nil {
		return err
	}
	r.checkShrink(segs, content)
	if err := r.planAll(ctx, segs, found); err != nil {
		return err
	}
	r.report()
	if r.o.DryRun {
		return nil
	}
	r.o.progress(Progress{Phase: PhaseSave})
	if ctx.Err() != nil { // the last moment to stop without a trace
		return interrupted(ctx)
	}
	if err := r.commit(); err != nil {
		return err
	}
	r.o.progress(Progress{Phase: PhaseWrite, Total: int64(len(r.pages))})
	if err := testHookAfterCommit(); err != nil {
		return err
	}
	if err := r.write(); err != nil {
		return err
	}
	return os.Remove(filepath.Join(r.o.StateDir, unfinishedFile))
}

// discovered is the outcome of discovering the pages.
type discovered struct {
	pages []pageInfo
	err   error
}

// discoverAsync discovers the pages on a goroutine of its own, so that
// reading and parsing them overlaps packing the sources.
func (r *run) discoverAsync() <-chan discovered {
	out := make(chan discovered, 1)
	go func() {
		pages, err := r.o.discover()
		out <- discovered{pages, err}
	}()
	return out
}

// planAll plans the generation on the pages found.
func (r *run) planAll(ctx context.Context, segs []segmentInfo, found discovered) error {
	r.o.progress(Progress{Phase: PhasePlan})
	if found.err != nil {
		return found.err
	}
	r.pages = found.pages
	if ctx.Err() != nil {
		return interrupted(ctx)
	}
	r.checkNewState()
	n, example := r.outsideSitePath()
	err := r.plan(segs)
	var be *BudgetError
	if n > 0 && (errors.Is(err, ErrTooFewPages) || errors.As(err, &be)) {
		return &SitePathError{Pages: n, Path: sitePath(mustURL(r.o.SiteURL)), Example: example, Err: err}
	}
	if err == nil && n > 0 {
		r.res.OutsideSitePath = n
		r.res.Warnings = append(r.res.Warnings, outsideWarning(n, sitePath(mustURL(r.o.SiteURL)), example))
	}
	return err
}

// outsideWarning says that n pages are linked outside the site URL's
// path, such as example.
func outsideWarning(n int, path, example string) string {
	if n == 1 {
		return fmt.Sprintf("1 page is linked at a path outside the site URL's path %s, %s, so it cannot carry blocks: "+
			"it is served from another path than the site URL says, or the site URL is wrong", path, example)
	}
	return fmt.Sprintf("%d pages are linked at paths outside the site URL's path %s, such as %s, so they cannot carry blocks: "+
		"the pages are served from another path than the site URL says, or the site URL is wrong", n, path, example)
}

// outsideSitePath counts the pages linked only outside the site URL's
// path and returns the first such link.
func (r *run) outsideSitePath() (n int, example string) {
	for _, p := range r.pages {
		if p.Outside != "" {
			if n == 0 {
				example = p.Outside
			}
			n++
		}
	}
	return n, example
}

// testHookAfterCommit lets tests simulate a crash between saving the state
// and writing the pages.
var testHookAfterCommit = func() error { return nil }

// seal packs and encrypts every source, then keeps the previous version of
// each segment whose tar is unchanged, so its blocks stay byte-identical.
// It also returns each segment's bytes of regular files. A done ctx
// stops it within a read.
func (r *run) seal(ctx context.Context, sources []source) ([]segmentInfo, map[string]int64, error) {
	prev := r.st.current()
	r.fresh = map[string]*codec.Sealed{}
	var segs []segmentInfo
	content := map[string]int64{}
	meter := &packMeter{o: r.o}
	for i := range sources {
		sources[i].input.Entries = watch(ctx, sources[i].input.Entries, meter)
	}
	for _, src := range sources {
		r.o.progress(Progress{Phase: PhasePack, Name: src.input.Name, Done: meter.done, Total: meter.total})
		sealed, err := codec.Seal(src.input, r.sealer, codec.SealOptions{TempDir: r.tmp})
		if ctx.Err() != nil {
			if err == nil {
				sealed.Close()
			}
			return nil, nil, interrupted(ctx)
		}
		if err != nil {
			return nil, nil, err
		}
		for _, f := range sealed.Files {
			content[sealed.Name] += f.Size
		}
		info := segmentInfo{TarMAC: r.key.tarMAC(sealed.TarHash), Source: joinOrigins(src.origin), Cipher: uint8(sealed.Cipher), Signer: r.signerID()}
		info.Name, info.Kind, info.TarSize, info.Files = sealed.Name, "data", sealed.TarSize, len(sealed.Files)
		info.Substance = r.key.segmentSubstance(sealed.Files, src.volatile)
		if old, files := r.reusable(prev, &info, sealed.Files); old != nil {
			sealed.Close()
			r.files = append(r.files, files...)
			segs = append(segs, *old)
			continue
		}
		r.files = append(r.files, sealed.Files...)
		if info.Substance != (manifest.Digest{}) {
			if info.Listed, err = r.key.sealListed(sealed.Files, src.volatile); err != nil {
				sealed.Close()
				return nil, nil, err
			}
		}
		info.ID, info.Length = sealed.ID, sealed.Length
		r.fresh[info.Name] = sealed
		segs = append(segs, info)
	}
	r.o.progress(Progress{Phase: PhasePack, Done: meter.done, Total: meter.total})
	return segs, content, nil
}

// reusable returns the previous version of a segment if its content (or
// its substance: see Dump.Volatile), cipher and signer are unchanged and
// its ciphertext is still in the state, with the listing entries of what
// it holds: files, the ones just packed, when its content is unchanged;
// when its substance is, files with its volatile dumps' entries as they
// were packed (see sealListed).
func (r *run) reusable(prev *generationInfo, info *segmentInfo, files []manifest.File) (*segmentInfo, []manifest.File) {
	if prev == nil {
		return nil, nil
	}
	old := prev.segment(info.Name)
	if old == nil || old.Cipher != info.Cipher || old.Signer != info.Signer {
		return nil, nil
	}
	out := *old
	switch {
	case old.TarMAC == info.TarMAC:
	case info.Substance != (manifest.Digest{}) && old.Substance == info.Substance:
		listed, err := r.key.openListed(old.Listed, files)
		if err != nil {
			return nil, nil
		}
		files = listed
	default:
		return nil, nil
	}
	if _, err := os.Stat(segmentPath(r.o.StateDir, old.ID)); err != nil {
		return nil, nil
	}
	out.Source = info.Source
	return &out, files
}

func (r *run) signerID() string {
	if r.sealer.Signer == nil {
		return ""
	}
	return keys.FormatKeyID(r.sealer.Signer.KeyID())
}

// changed reports whether segs differ from the current generation's data
// segments (content, set of segments) or the site URL changed.
func (r *run) changed(segs []segmentInfo) bool {
	prev := r.st.current()
	if prev == nil || r.st.Site != r.o.SiteURL || len(r.fresh) > 0 {
		return true
	}
	n := 0
	for _, s := range prev.Segments {
		if s.Kind == "data" {
			n++
		}
	}
	return n != len(segs)
}

func newGenerationID() manifest.ID {
	var id manifest.ID
	rand.Read(id[:])
	return id
}

func (r *run) closeSealed() {
	for _, s := range r.fresh {
		s.Close()
	}
}

func joinOrigins(o []string) string {
	out := ""
	for i, s := range o {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}
