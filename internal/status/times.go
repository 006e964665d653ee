package status

import (
	"sort"

	"github.com/lazarus-preserve/lazarus/internal/source"
)

// clampTimes dates no capture before the page version it holds: a
// capture whose digest the serve history records gets at least that
// record's time (the version's first serving). A local mirror's capture
// time is its file's modification time, which wget sets to the page's
// Last-Modified, not to when it was crawled; taken as is, such a capture
// would predate the history and make the page look observed for longer
// than it was served (see since). Captures of a distrusted source are
// left as listed: their digests were not trusted.
func (r *statusRun) clampTimes() {
	moved := false
	for _, c := range r.caps {
		if r.distrusted[c.src] || c.c.Time.IsZero() {
			continue
		}
		if rec, ok := r.hist.record(c.c.Digest); ok && c.c.Time.Before(rec.Time) {
			c.c.Time = rec.Time
			moved = true
		}
	}
	if moved {
		sort.SliceStable(r.caps, func(i, j int) bool { return r.caps[i].c.Time.Before(r.caps[j].c.Time) })
	}
}

// fileTimesNote is the note of a dir= source: its capture times are file
// times.
func fileTimesNote(name string) string {
	return name + ": capture times are the files' modification times (a wget mirror sets them to each page's Last-Modified), " +
		"not when the pages were crawled; a capture the serve history records is dated no earlier than the page version it holds."
}

// capturesAgain reports whether a source is an archive that goes on
// capturing (a CDX or Memento archive, Common Crawl), not a fixed set of
// files (a WARC file, a mirror directory): only archives have a future in
// the capture model; what files hold counts as it is.
func capturesAgain(src source.Source) bool {
	switch src.(type) {
	case source.DirSource, *source.DirSource, source.WARCSource, *source.WARCSource:
		return false
	}
	return true
}

// fileTimes reports whether a source's capture times are file times (a
// dir= mirror).
func fileTimes(src source.Source) bool {
	switch src.(type) {
	case source.DirSource, *source.DirSource:
		return true
	}
	return false
}
