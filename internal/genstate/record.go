// Package genstate records what became of each generation once inject
// made it: published (written to the site), requested (archives were
// asked to capture it), confirmed (an audit found it recoverable from the
// archives) and confirmed in each archive on its own, with times. The
// record is one small JSON file in inject's state directory (File):
// lazarus inject adds the generations it publishes, lazarus capture the
// requests and what its audits confirm, and the next inject reads it to
// keep earlier generations on the pages until a newer one is confirmed
// (make-before-break by confirmation, not by a timer).
package genstate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// File is the record's name in the state directory.
const File = "archive-state.json"

// Version is the record's format version; a newer one is refused.
const Version = 1

// MaxGenerations bounds the generations kept in the record, newest first.
const MaxGenerations = 32

// maxBytes bounds the file read: a record of MaxGenerations is a few KiB.
const maxBytes = 1 << 20

// Record is the file's contents.
type Record struct {
	Version int `json:"version"`
	// Audited is when an audit of the archives (lazarus capture) last
	// ran; zero while none has: inject then keeps earlier generations by
	// its own rule (--keep-previous), not by confirmation.
	Audited time.Time `json:"audited,omitzero"`
	// RestorePoint is the newest generation that audit found recoverable
	// from the archives combined; "" if none.
	RestorePoint string `json:"restore_point,omitempty"`
	// Generations are newest first (by Published).
	Generations []Generation `json:"generations"`
	// KeysRequired records, by archive, when it last refused requests
	// without keys: they are not tried again for a while.
	KeysRequired map[string]time.Time `json:"keys_required,omitempty"`
	// KeyRefused records, by archive, when it last refused the user's
	// keys, until it takes a request with keys again.
	KeyRefused map[string]time.Time `json:"key_refused,omitempty"`
}

// Generation is what became of one generation.
type Generation struct {
	ID string `json:"id"`
	// Published is when inject wrote it to the site's outputs (its
	// manifest's time when learnt from an audit).
	Published time.Time `json:"published"`
	// Live is when a capture run first saw the live site serve it.
	Live time.Time `json:"live,omitzero"`
	// Requested are the archives asked to capture it.
	Requested []Request `json:"requested,omitempty"`
	// Confirmed is when an audit first found it recoverable from the
	// archives combined (zero when the last audit did not).
	Confirmed time.Time `json:"confirmed,omitzero"`
	// ConfirmedIn are the archives the last audit found holding it each
	// on its own.
	ConfirmedIn []Confirmation `json:"confirmed_in,omitempty"`
}

// Request is what one archive was asked for a generation, over every
// capture run.
type Request struct {
	Archive string    `json:"archive"`
	Keyed   bool      `json:"keyed"`
	First   time.Time `json:"first"` // the first request sent
	Last    time.Time `json:"last"`  // the last one
	Sent    int       `json:"sent"`  // requests sent
	Taken   int       `json:"taken"` // of which the archive took
}

// Confirmation is one archive holding a generation on its own.
type Confirmation struct {
	Archive string `json:"archive"`
	// Seen is when an audit first found it so; Since the time of the
	// archive's capture that completed it.
	Seen  time.Time `json:"seen"`
	Since time.Time `json:"since"`
}

// The states of a generation (Generation.State).
const (
	StatePublished = "published"
	StateRequested = "requested"
	StateConfirmed = "confirmed"
)

// State is the furthest the generation got: confirmed (recoverable from
// the archives, as the last audit found), requested (an archive was
// asked to capture it), or published.
func (g Generation) State() string {
	switch {
	case !g.Confirmed.IsZero():
		return StateConfirmed
	case slices.ContainsFunc(g.Requested, func(r Request) bool { return r.Sent > 0 }):
		return StateRequested
	}
	return StatePublished
}

// Find returns the generation id, nil if the record has none.
func (r *Record) Find(id string) *Generation {
	for i := range r.Generations {
		if r.Generations[i].ID == id {
			return &r.Generations[i]
		}
	}
	return nil
}

// Ensure returns the generation id, adding it, published at published,
// if the record has none; the record stays newest first and at most
// MaxGenerations long (the generation may be dropped at once if it is
// older than all of those; Ensure then returns a detached copy).
func (r *Record) Ensure(id string, published time.Time) *Generation {
	if g := r.Find(id); g != nil {
		return g
	}
	r.Generations = append(r.Generations, Generation{ID: id, Published: published.UTC()})
	slices.SortStableFunc(r.Generations, func(a, b Generation) int { return b.Published.Compare(a.Published) })
	if len(r.Generations) > MaxGenerations {
		r.Generations = r.Generations[:MaxGenerations]
	}
	if g := r.Find(id); g != nil {
		return g
	}
	return &Generation{ID: id, Published: published.UTC()}
}

// Confirming reports whether an audit ever ran: from then on inject
// keeps earlier generations until a newer one is confirmed.
func (r *Record) Confirming() bool { return !r.Audited.IsZero() }

// ErrDamaged means the record is not one this program wrote.
var ErrDamaged = errors.New("archive state record is damaged")

// Read reads the record in the state directory dir; a missing one is an
// empty record.
func Read(dir string) (*Record, error) {
	f, err := os.Open(filepath.Join(dir, File))
	if errors.Is(err, os.ErrNotExist) {
		return &Record{Version: Version, Generations: []Generation{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the archive state: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the archive state: %w", err)
	}
	return Parse(data, filepath.Join(dir, File))
}

// Parse reads a record's bytes, named name in errors (checked, never
// trusted: a record read from shared storage is another program's).
func Parse(data []byte, name string) (*Record, error) {
	if len(data) > maxBytes {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrDamaged, name, maxBytes)
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrDamaged, name, err)
	}
	switch {
	case r.Version > Version:
		return nil, fmt.Errorf("%s has version %d; this program understands 1 to %d", name, r.Version, Version)
	case r.Version < 1:
		return nil, fmt.Errorf("%w: %s has no version", ErrDamaged, name)
	case r.RestorePoint != "" && !validID(r.RestorePoint):
		return nil, fmt.Errorf("%w: %s: restore point %q is not a generation id", ErrDamaged, name, r.RestorePoint)
	case len(r.Generations) > MaxGenerations:
		r.Generations = r.Generations[:MaxGenerations]
	}
	if r.Generations == nil {
		r.Generations = []Generation{}
	}
	for _, g := range r.Generations {
		for _, q := range g.Requested {
			if q.Sent < 0 || q.Taken < 0 || q.Taken > q.Sent || q.Sent > MaxRequestsCounted {
				return nil, fmt.Errorf("%w: %s: generation %q: %d requests taken of %d sent", ErrDamaged, name, g.ID, q.Taken, q.Sent)
			}
		}
	}
	return &r, nil
}

// MaxRequestsCounted bounds the requests a record counts for one
// generation and archive: far more than any run sends (one a page, a few
// attempts), so that sums over the record cannot overflow and a damaged
// count is refused, not planned on.
const MaxRequestsCounted = 1 << 20

// validID reports whether id is a generation id.
func validID(id string) bool {
	_, err := manifest.ParseID(id)
	return err == nil
}

// Update reads the record in dir, lets change modify it and writes it
// back (a temporary file renamed over the old one), holding a lock so
// that an inject and a capture run at once lose neither's change. dir
// must exist. Nothing is written when change fails.
func Update(dir string, change func(*Record) error) error {
	lock, err := os.OpenFile(filepath.Join(dir, File+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("locking the archive state: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("locking the archive state: %w", err)
	}
	r, err := Read(dir)
	if err != nil {
		return err
	}
	if err := change(r); err != nil {
		return err
	}
	data, err := r.Marshal()
	if err != nil {
		return err
	}
	return writeFile(dir, data)
}

// Marshal is the record as the file holds it, at Version.
func (r *Record) Marshal() ([]byte, error) {
	r.Version = Version
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// writeFile replaces the record with data through a synced temporary
// file.
func writeFile(dir string, data []byte) (err error) {
	f, err := os.CreateTemp(dir, "."+File+".*")
	if err != nil {
		return fmt.Errorf("writing the archive state: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("writing the archive state: %w", err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("writing the archive state: %w", err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("writing the archive state: %w", err)
	}
	if err = os.Rename(f.Name(), filepath.Join(dir, File)); err != nil {
		return fmt.Errorf("writing the archive state: %w", err)
	}
	return nil
}
