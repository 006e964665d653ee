package genstate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"
)

var t0 = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// TestUpdateKeepsBothWriters: an inject and a capture updating the
// record at once both keep their change; a missing record reads empty.
func TestUpdateKeepsBothWriters(t *testing.T) {
	dir := t.TempDir()
	if r, err := Read(dir); err != nil || len(r.Generations) != 0 || r.Confirming() {
		t.Fatalf("missing record: %+v %v", r, err)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := Update(dir, func(r *Record) error {
				r.Ensure(fmt.Sprintf("%032x", i), t0.Add(time.Duration(i)*time.Hour))
				return nil
			}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	r, err := Read(dir)
	if err != nil || len(r.Generations) != 20 || r.Generations[0].ID != fmt.Sprintf("%032x", 19) {
		t.Fatalf("%d generations, newest %+v, %v", len(r.Generations), r.Generations[0], err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 { // the record and its lock, no temporary file left
		t.Fatalf("files %v", entries)
	}
}

// TestUpdateFailsWritesNothing: a change that fails leaves the record as
// it was.
func TestUpdateFailsWritesNothing(t *testing.T) {
	dir := t.TempDir()
	Update(dir, func(r *Record) error { r.Ensure("a", t0); return nil })
	boom := errors.New("boom")
	if err := Update(dir, func(r *Record) error { r.Ensure("b", t0.Add(time.Hour)); return boom }); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if r, _ := Read(dir); len(r.Generations) != 1 {
		t.Fatalf("%+v", r.Generations)
	}
}

// TestReadRefuses: a damaged record, one of a newer version and one
// without a version are errors, never an empty record that would make
// inject forget what was confirmed; a restore point that is no
// generation id, and request counts no run records (taken above sent,
// negative, beyond MaxRequestsCounted), make the record damaged, named
// as such (not a setting of inject's to correct, nor counts to plan on).
func TestReadRefuses(t *testing.T) {
	for name, body := range map[string]string{
		"damaged":       `{"version":1,"generations":[`,
		"newer":         `{"version":2,"generations":[]}`,
		"no version":    `{"generations":[]}`,
		"restore point": `{"version":1,"audited":"2026-11-28T10:00:00Z","restore_point":"\u001b[31m","generations":[]}`,
		"taken > sent":  `{"version":1,"generations":[{"id":"a","published":"2026-11-28T10:00:00Z","requested":[{"archive":"wayback","keyed":true,"sent":2,"taken":9}]}]}`,
		"huge counts":   `{"version":1,"generations":[{"id":"a","published":"2026-11-28T10:00:00Z","requested":[{"archive":"wayback","keyed":true,"sent":9000000000000000000,"taken":9000000000000000000}]}]}`,
		"negative":      `{"version":1,"generations":[{"id":"a","published":"2026-11-28T10:00:00Z","requested":[{"archive":"wayback","keyed":true,"sent":-5,"taken":-9}]}]}`,
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, File), []byte(body), 0o600)
		if _, err := Read(dir); err == nil {
			t.Errorf("%s: read", name)
		} else if name != "damaged" && name != "newer" && name != "no version" && !errors.Is(err, ErrDamaged) {
			t.Errorf("%s: %v, want ErrDamaged", name, err)
		}
	}
}

// TestEnsureBounded: the record keeps the newest MaxGenerations, newest
// first.
func TestEnsureBounded(t *testing.T) {
	r := &Record{}
	for i := range MaxGenerations + 5 {
		r.Ensure(fmt.Sprint(i), t0.Add(time.Duration(i)*time.Hour))
	}
	if len(r.Generations) != MaxGenerations || r.Generations[0].ID != fmt.Sprint(MaxGenerations+4) {
		t.Fatalf("%d generations, newest %s", len(r.Generations), r.Generations[0].ID)
	}
	if g := r.Ensure("old", t0.Add(-time.Hour)); g == nil || r.Find("old") != nil {
		t.Fatal("an older generation than all kept was added")
	}
}

// TestObserveAudit: an audit confirms the generations it finds
// recoverable (first time kept), names the archives holding each alone
// (first time kept per archive), and a later audit that no longer finds
// one clears it; requests add up per archive and set the state.
func TestObserveAudit(t *testing.T) {
	r := &Record{}
	r.Ensure("g2", t0.Add(time.Hour))
	r.ObserveRequests("g2", t0, Request{Archive: "wayback", First: t0.Add(2 * time.Hour), Last: t0.Add(3 * time.Hour), Sent: 4, Taken: 3})
	r.ObserveRequests("g2", t0, Request{Archive: "wayback", First: t0.Add(4 * time.Hour), Last: t0.Add(5 * time.Hour), Sent: 2, Taken: 2})
	if g := r.Find("g2"); g.State() != StateRequested || g.Requested[0].Sent != 6 || g.Requested[0].Taken != 5 || !g.Requested[0].Last.Equal(t0.Add(5*time.Hour)) {
		t.Fatalf("requests %+v", g.Requested)
	}
	rep := &status.Report{RestorePoint: &status.RestorePoint{Generation: "g1"}, Generations: []status.Generation{
		{ID: "g2", Time: t0.Add(time.Hour)},
		{ID: "g1", Time: t0, Recoverable: true, HeldBy: []status.SourceHold{{Source: "wayback", Since: t0.Add(time.Minute)}}},
	}}
	a1 := t0.Add(6 * time.Hour)
	r.ObserveAudit(rep, a1)
	if !r.Confirming() || r.RestorePoint != "g1" || r.Find("g1").State() != StateConfirmed || !r.Find("g1").Confirmed.Equal(a1) {
		t.Fatalf("after the first audit: %+v", r)
	}
	rep.RestorePoint = &status.RestorePoint{Generation: "g2"}
	rep.Generations[0].Recoverable = true
	rep.Generations[0].HeldBy = []status.SourceHold{{Source: "wayback", Since: a1}}
	rep.Generations[1].HeldBy = append(rep.Generations[1].HeldBy, status.SourceHold{Source: "commoncrawl", Since: a1})
	a2 := t0.Add(7 * time.Hour)
	r.ObserveAudit(rep, a2)
	g1 := r.Find("g1")
	if r.RestorePoint != "g2" || !g1.Confirmed.Equal(a1) || len(g1.ConfirmedIn) != 2 || !g1.ConfirmedIn[0].Seen.Equal(a1) || !g1.ConfirmedIn[1].Seen.Equal(a2) {
		t.Fatalf("after the second audit: %+v", g1)
	}
	rep.Generations[1].Recoverable, rep.Generations[1].HeldBy = false, nil
	r.ObserveAudit(rep, t0.Add(8*time.Hour))
	if g1 := r.Find("g1"); !g1.Confirmed.IsZero() || len(g1.ConfirmedIn) != 0 || g1.State() != StatePublished {
		t.Fatalf("after the archives lost g1: %+v", g1)
	}
}

// TestKeylessQuiet: a refusal of requests without keys holds for
// KeysQuiet, then they may be tried again.
func TestKeylessQuiet(t *testing.T) {
	r := &Record{}
	r.RefusedKeyless("wayback", t0)
	if _, ok := r.KeylessRefusedSince("wayback", t0.Add(KeysQuiet-time.Minute)); !ok {
		t.Fatal("tried again within the quiet time")
	}
	if _, ok := r.KeylessRefusedSince("wayback", t0.Add(KeysQuiet)); ok {
		t.Fatal("never tried again")
	}
}

// TestRequestCountsBounded: counts that would pass MaxRequestsCounted
// are halved, their ratio kept, and the record still reads back.
func TestRequestCountsBounded(t *testing.T) {
	dir := t.TempDir()
	for range 3 {
		if err := Update(dir, func(r *Record) error {
			r.ObserveRequests("a", time.Unix(0, 0), Request{Archive: "wayback", Keyed: true, Sent: MaxRequestsCounted * 3 / 4, Taken: MaxRequestsCounted / 4})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	q := r.Generations[0].Requested[0]
	if q.Sent > MaxRequestsCounted || q.Sent < MaxRequestsCounted/2 || q.Taken*3 != q.Sent {
		t.Errorf("%d taken of %d sent, want at most %d sent, one in three taken", q.Taken, q.Sent, MaxRequestsCounted)
	}
}
