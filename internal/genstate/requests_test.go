package genstate

import (
	"errors"
	"testing"
	"time"
)

// TestRequestSuccessCountsOnlyOnEvidence: with keys, a request counts as
// taken with the prior until requests are recorded, then as measured,
// but not while the keys stand refused, which a later taken request
// clears; without keys, only once enough were recorded and some taken,
// and not after a refusal.
func TestRequestSuccessCountsOnlyOnEvidence(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	with := func(keyed bool, sent, taken int) *Record {
		r := &Record{Version: Version}
		r.ObserveRequests("0123456789abcdef0123456789abcdef", now.Add(-time.Hour), Request{Archive: "wayback", Keyed: keyed, Sent: sent, Taken: taken})
		return r
	}
	refusedKey := with(true, 30, 27)
	refusedKey.RefusedKey("wayback", now.Add(-time.Hour))
	refusedLong := with(true, 30, 27)
	refusedLong.RefusedKey("wayback", now.Add(-KeysQuiet-time.Hour))
	refusedThenTaken := with(true, 30, 27)
	refusedThenTaken.RefusedKey("wayback", now.Add(-time.Hour))
	refusedThenTaken.ObserveRequests("0123456789abcdef0123456789abcdef", now, Request{Archive: "wayback", Keyed: true, Sent: 2, Taken: 1})
	refusedKeyless := with(false, 40, 30)
	refusedKeyless.RefusedKeyless("wayback", now.Add(-48*time.Hour))
	for _, c := range []struct {
		name    string
		rec     *Record
		keyed   bool
		success float64
		err     error
	}{
		{"keys, none recorded", &Record{}, true, 0.5, nil},
		{"keys, 30 sent, 27 taken", with(true, 30, 27), true, (27 + 5.0) / 40, nil},
		{"keys refused an hour ago", refusedKey, true, 0, ErrKeyRefused},
		{"keys refused over a week ago", refusedLong, true, (27 + 5.0) / 40, nil},
		{"keys refused, then a request taken", refusedThenTaken, true, (28 + 5.0) / 42, nil},
		{"no keys, none recorded", &Record{}, false, 0, ErrKeylessUnproven},
		{"no keys, none taken", with(false, 12, 0), false, 0, ErrKeylessUnproven},
		{"no keys, 20 sent, 15 taken", with(false, 20, 15), false, 0.75, nil},
		{"no keys, refused 2 days ago", refusedKeyless, false, 0, ErrKeylessRefused},
		{"keyless evidence does not count for keys", with(false, 20, 15), true, 0.5, nil},
	} {
		got, _, err := c.rec.RequestSuccess("wayback", c.keyed, now)
		if got != c.success || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("%s: %v, %v; want %v, %v", c.name, got, err, c.success, c.err)
		}
	}
}

// TestRecordMarshalParses: a record marshalled is parsed back the same,
// the keys' refusal included.
func TestRecordMarshalParses(t *testing.T) {
	r := &Record{}
	r.Ensure("0123456789abcdef0123456789abcdef", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	r.RefusedKey("wayback", time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC))
	data, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(data, "record")
	if err != nil {
		t.Fatal(err)
	}
	if back.Version != Version || len(back.Generations) != 1 || !back.KeyRefused["wayback"].Equal(r.KeyRefused["wayback"]) {
		t.Errorf("parsed back %+v from %s", back, data)
	}
	if _, err := Parse([]byte("{"), "record"); !errors.Is(err, ErrDamaged) {
		t.Errorf("a damaged record: %v", err)
	}
}
