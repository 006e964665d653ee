package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/genstate"
)

// archiveStateLine says what became of a generation, from the archive
// state record: "published T; requested from wayback T (6 sent, 5
// taken, without keys); confirmed T, in wayback alone (captured T)", or
// "… not confirmed yet".
func archiveStateLine(g *genstate.Generation) string {
	parts := []string{"generation " + g.ID + " published " + stamp(g.Published)}
	for _, r := range g.Requested {
		how := "with keys"
		if !r.Keyed {
			how = "without keys"
		}
		parts = append(parts, fmt.Sprintf("requested from %s %s (%d sent, %d taken, %s)", printable(r.Archive), stamp(r.First), r.Sent, r.Taken, how))
	}
	switch {
	case g.Confirmed.IsZero() && len(g.Requested) == 0:
		parts = append(parts, "neither requested nor confirmed yet")
	case g.Confirmed.IsZero():
		parts = append(parts, "not confirmed yet")
	default:
		c := "confirmed " + stamp(g.Confirmed)
		var in []string
		for _, a := range g.ConfirmedIn {
			in = append(in, fmt.Sprintf("%s (captured %s)", printable(a.Archive), stamp(a.Since)))
		}
		if len(in) > 0 {
			c += ", in " + strings.Join(in, " and ") + " alone"
		} else {
			c += ", by the archives combined"
		}
		parts = append(parts, c)
	}
	return strings.Join(parts, "; ")
}

// stamp is a time in RFC 3339, UTC, to the second.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// archiveStateHint says how to go on when the archive state record is
// damaged: what it held is what lazarus capture's audits found, so a
// capture run that only audits records it again.
func archiveStateHint(w io.Writer, err error) {
	if errors.Is(err, genstate.ErrDamaged) {
		hintf(w, "move %s aside and run lazarus capture --requests off with the same state directory (--config, or --state): it audits the archives and records what they hold again; inject then keeps earlier generations until a newer one is confirmed", genstate.File)
	}
}
