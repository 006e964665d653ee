package recover

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os"

	"github.com/lazarus-preserve/lazarus/internal/rootfile"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// journal keeps what a recovery already did in its state directory, so a
// run that was killed continues without asking the archives again:
// listings as JSON lines per source (written once a listing is complete)
// and fetched captures as files named by the hash of their key. Every
// name is resolved inside the directory's root and written by writeAtomic,
// so links planted in the journal lead nowhere.
type journal struct{ root *os.Root }

// openJournal opens (creating) the state directory dir; when it lies
// inside the output directory, through out's root.
func openJournal(out *os.Root, outDir, dir string) (*journal, error) {
	if dir == "" {
		return nil, nil
	}
	root, err := rootfile.OpenSub(out, outDir, dir, 0o700)
	if err != nil {
		return nil, err
	}
	if err := root.MkdirAll("captures", 0o700); err != nil {
		root.Close()
		return nil, err
	}
	return &journal{root: root}, nil
}

func (j *journal) close() {
	if j != nil {
		j.root.Close()
	}
}

// listingName names a source's journaled listing for a site: a rerun with
// another --url lists again.
func listingName(src source.Source, site *url.URL) string {
	key := src.Name()
	if site != nil {
		key += "\x00" + site.String()
	}
	return "listing-" + rootfile.KeyName(key) + ".jsonl"
}

// maxJournalListing bounds a journaled listing file read back.
const maxJournalListing = 1 << 30

// listing returns a source's journaled listing of a site, if complete.
func (j *journal) listing(src source.Source, site *url.URL) ([]source.Capture, bool) {
	if j == nil {
		return nil, false
	}
	raw, err := rootfile.ReadRegular(j.root, listingName(src, site), maxJournalListing)
	if err != nil {
		return nil, false
	}
	var out []source.Capture
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var c source.Capture
		if json.Unmarshal(sc.Bytes(), &c) != nil {
			return nil, false
		}
		out = append(out, c)
	}
	return out, sc.Err() == nil
}

// saveListing journals a complete listing; an empty one is not kept (the
// archive may hold the site next time).
func (j *journal) saveListing(src source.Source, site *url.URL, caps []source.Capture) error {
	if j == nil || len(caps) == 0 {
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, c := range caps {
		if err := enc.Encode(c); err != nil {
			return err
		}
	}
	return rootfile.WriteAtomic(j.root, listingName(src, site), buf.Bytes(), 0o600)
}

func captureName(c source.Capture) string { return "captures/" + rootfile.KeyName(source.Key(c)) }

// fetch returns a capture's bytes from the journal, or reads them (see
// source.Read) and journals them when they arrived whole; a capture
// never read whole is not journaled, so a later run asks again. The
// captures of local sources (a mirror directory) are read from the
// source and not journaled: reading them again costs no more than
// reading a copy, which would cost an fsync each.
func (j *journal) fetch(ctx context.Context, src source.Source, c source.Capture, limit int64) ([]byte, error) {
	if j == nil || local(src) {
		page, _, err := source.Read(ctx, src, c, limit)
		return page, err
	}
	if b, err := rootfile.ReadRegular(j.root, captureName(c), limit); err == nil {
		return b, nil
	}
	page, whole, err := source.Read(ctx, src, c, limit)
	if err == nil && whole {
		rootfile.WriteAtomic(j.root, captureName(c), page, 0o600) // best effort: a failed write costs a refetch
	}
	return page, err
}
