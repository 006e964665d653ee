package status

import (
	"fmt"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/history"
)

// fetchReasons says why the captures read in this run (fetched, or
// scanned while a local source was listed) were not known from the
// history, counted by reason: "2 whose digest the history does not
// record, 1 listed without a digest of a known algorithm"; "" if none was
// read.
func (r *statusRun) fetchReasons() string {
	reasons := []string{
		"listed without a digest of a known algorithm (SHA-1 or SHA-256)",
		"whose digest the history does not record (a page version older than the history, or changed or stored compressed by the archive)",
		"whose recorded version names a generation without a verified manifest",
		"listed shorter than the blocks their recorded version carries (truncated copies)",
		"of an archive that failed a spot check",
	}
	counts := make([]int, len(reasons))
	for _, c := range r.caps {
		if c.how != HowFetched && c.how != HowTruncated && c.how != HowFailed {
			continue
		}
		_, parsed := history.ParseDigest(c.c.Digest)
		_, recorded := r.hist.record(c.c.Digest)
		_, held := r.hist.held(c.c.Digest)
		switch {
		case c.spotFailed:
			continue // not read: its archive's spot-check fetches all failed (a problem line says so)
		case r.distrusted[c.src]:
			counts[4]++
		case !parsed:
			counts[0]++
		case !recorded:
			counts[1]++
		case !held:
			counts[2]++
		default:
			counts[3]++
		}
	}
	var parts []string
	for i, n := range counts {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, reasons[i]))
		}
	}
	return strings.Join(parts, ", ")
}
