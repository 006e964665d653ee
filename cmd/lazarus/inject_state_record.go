package main

import (
	"fmt"
	"io"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/genstate"
)

// injectJSON is inject's --json: the run's report and the archive state
// of the generations on the pages (the current one first).
type injectJSON struct {
	*injector.Report
	ArchiveState []genstate.Generation `json:"archive_state"`
	// RequestsNote says why the plan counts on no capture requests
	// although the config has a [capture] table.
	RequestsNote string `json:"requests_note,omitempty"`
}

// publishGeneration records a real run's generation as published at the
// run's start in the archive state (by the first run that wrote it, or
// the first since the record exists) and returns the record; a dry run
// records nothing. A
// record that cannot be read or written is a warning: the pages are
// written already.
func publishGeneration(res *injector.Report, o injector.Options, started time.Time, stderr io.Writer) *genstate.Record {
	var rec *genstate.Record
	var err error
	if o.DryRun {
		rec, err = genstate.Read(o.StateDir)
	} else {
		err = genstate.Update(o.StateDir, func(r *genstate.Record) error {
			r.Ensure(res.Generation, started)
			rec = r
			return nil
		})
	}
	if err != nil {
		fmt.Fprintf(stderr, "lazarus: warning: the archive state in %s: %s\n", o.StateDir, printable(err.Error()))
		return nil
	}
	return rec
}

// injectArchiveState is what the record says of the current generation
// and the earlier ones kept on the pages, those it knows.
func injectArchiveState(res *injector.Report, rec *genstate.Record) []genstate.Generation {
	out := []genstate.Generation{}
	if rec == nil {
		return out
	}
	ids := []string{res.Generation}
	for _, k := range res.Kept {
		ids = append(ids, k.Generation)
	}
	for _, id := range ids {
		if g := rec.Find(id); g != nil {
			out = append(out, *g)
		}
	}
	return out
}

// printInjectArchiveState says what became of the generations on the
// pages and why the earlier ones are there: until a newer one is
// confirmed once lazarus capture has audited the archives, else by
// --keep-previous.
func printInjectArchiveState(w io.Writer, res *injector.Report, rec *genstate.Record) {
	if rec == nil {
		return
	}
	for _, g := range injectArchiveState(res, rec) {
		fmt.Fprintf(w, "  archive state: %s\n", archiveStateLine(&g))
	}
	cur := rec.Find(res.Generation)
	switch {
	case !rec.Confirming():
		fmt.Fprintln(w, "  no capture run has audited the archives yet: earlier generations are kept by --keep-previous; after each deploy, lazarus capture asks the archives, confirms, and records it here")
	case cur != nil && !cur.Confirmed.IsZero():
		fmt.Fprintf(w, "  generation %s is confirmed (audit of %s): earlier generations leave the pages\n", res.Generation, stamp(rec.Audited))
	default:
		rp := "none yet"
		if rec.RestorePoint != "" {
			rp = rec.RestorePoint
		}
		which := "earlier generations stay"
		if res.Requests != nil && rec.RestorePoint != "" {
			which = "earlier generations newer than the restore point stay (the restore point itself, held by the archives, left them)"
		}
		fmt.Fprintf(w, "  %s on the pages until generation %s is confirmed (last audit %s; the archives' newest restore point: %s)\n",
			which, res.Generation, stamp(rec.Audited), rp)
	}
}
