package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/genstate"
	"github.com/lazarus-preserve/lazarus/internal/problems"
)

// archiveStateLine says what became of a generation, from the archive
// state record: "published T; requested from wayback T (6 sent, 5
// taken, without keys); confirmed T, in wayback alone (captured T)", or
// "… not confirmed yet".
func archiveStateLine(g *genstate.Generation) string {
	parts := []string{"generation " + recorded(g.ID) + " published " + stamp(g.Published)}
	for i, r := range g.Requested {
		if i == maxArchivesShown {
			parts = append(parts, fmt.Sprintf("requested from %d more", len(g.Requested)-i))
			break
		}
		how := "with keys"
		if !r.Keyed {
			how = "without keys"
		}
		parts = append(parts, fmt.Sprintf("requested from %s %s (%d sent, %d taken, %s)", recorded(r.Archive), stamp(r.First), r.Sent, r.Taken, how))
	}
	switch {
	case g.Confirmed.IsZero() && len(g.Requested) == 0:
		parts = append(parts, "neither requested nor confirmed yet")
	case g.Confirmed.IsZero():
		parts = append(parts, "not confirmed yet")
	default:
		c := "confirmed " + stamp(g.Confirmed)
		var in []string
		for i, a := range g.ConfirmedIn {
			if i == maxArchivesShown {
				in = append(in, fmt.Sprintf("%d more", len(g.ConfirmedIn)-i))
				break
			}
			in = append(in, fmt.Sprintf("%s (captured %s)", recorded(a.Archive), stamp(a.Since)))
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

// maxArchivesShown bounds the archives a generation's line names in each
// list; a record naming more (capture asks one or two) is damaged or
// another program's, and the rest are counted.
const maxArchivesShown = 8

// maxRecordedBytes bounds a generation id or archive name as printed.
const maxRecordedBytes = 80

// recorded is a string from the record (another program's file, checked
// for its counts, not its names) as printed: escaped (see printable) and
// clipped.
func recorded(s string) string { return problems.Clip(printable(s), maxRecordedBytes) }

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
