package status

import (
	"context"
	"net/url"

	"github.com/lazarus-preserve/lazarus/internal/source"
)

// localStreamer returns how Status reads a source whose captures are
// local files (WARC files, a mirror directory) while listing it: each
// once, so that their digest is computed from their bytes and looked up
// in the serve history, and only pages it does not know are scanned.
// problem reports a file that cannot be read (it is left out). Other
// sources are listed (statusList) and fetched.
func localStreamer(src source.Source, maxCapture int64, problem func(string, ...any)) (source.Streamer, bool) {
	switch s := src.(type) {
	case source.Streamer:
		return s, true
	case source.DirSource:
		return dirStreamer{dir: s, max: maxCapture, problem: problem}, true
	}
	return nil, false
}

// dirStreamer streams a mirror directory's files.
type dirStreamer struct {
	dir     source.DirSource
	max     int64
	problem func(string, ...any)
}

// Stream implements Streamer: every file DirSource lists, at most max
// bytes of it, read as recover fetches a capture.
func (d dirStreamer) Stream(ctx context.Context, site *url.URL, fn func(source.Capture, []byte) error) error {
	return d.dir.List(ctx, site, func(c source.Capture) error {
		page, _, err := source.Read(ctx, d.dir, c, d.max)
		if err != nil {
			d.problem("%s: %v", d.dir.Name(), err)
			return nil
		}
		return fn(c, page)
	})
}
