package recover

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
)

// journal keeps what a recovery already did in its state directory, so a
// run that was killed continues without asking the archives again:
// listings as JSON lines per source (written once a listing is complete)
// and fetched captures as files named by the hash of their key.
type journal struct{ dir string }

func openJournal(dir string) (*journal, error) {
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(filepath.Join(dir, "captures"), 0o700); err != nil {
		return nil, err
	}
	return &journal{dir: dir}, nil
}

func hashName(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:16])
}

func (j *journal) listingPath(src Source) string {
	return filepath.Join(j.dir, "listing-"+hashName(src.Name())+".jsonl")
}

// listing returns a source's journaled listing, if complete.
func (j *journal) listing(src Source) ([]Capture, bool) {
	if j == nil {
		return nil, false
	}
	f, err := os.Open(j.listingPath(src))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	var out []Capture
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var c Capture
		if json.Unmarshal(sc.Bytes(), &c) != nil {
			return nil, false
		}
		out = append(out, c)
	}
	return out, sc.Err() == nil
}

// saveListing journals a complete listing.
func (j *journal) saveListing(src Source, caps []Capture) error {
	if j == nil {
		return nil
	}
	tmp := j.listingPath(src) + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, c := range caps {
		if err := enc.Encode(c); err != nil {
			f.Close()
			return err
		}
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		return err
	}
	return os.Rename(tmp, j.listingPath(src))
}

func (j *journal) capturePath(c Capture) string {
	return filepath.Join(j.dir, "captures", hashName(captureKey(c)))
}

// fetch returns a capture's bytes from the journal, or fetches and
// journals them.
func (j *journal) fetch(ctx context.Context, src Source, c Capture, limit int64) ([]byte, error) {
	if j != nil {
		if b, err := os.ReadFile(j.capturePath(c)); err == nil {
			return b, nil
		}
	}
	rc, err := src.Fetch(ctx, c)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	page, err := io.ReadAll(io.LimitReader(rc, limit))
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	if j != nil {
		tmp := j.capturePath(c) + ".tmp"
		if os.WriteFile(tmp, page, 0o600) == nil {
			os.Rename(tmp, j.capturePath(c))
		}
	}
	return page, nil
}
