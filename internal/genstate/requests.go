package genstate

import (
	"errors"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/placement"
)

// Why the recorded requests cannot be counted on (Record.RequestSuccess).
var (
	// ErrKeylessRefused: the archive refused requests without keys less
	// than KeysQuiet ago (see KeylessRefusedSince).
	ErrKeylessRefused = errors.New("the archive refused capture requests without keys")
	// ErrKeylessUnproven: fewer than placement.PriorWeight requests
	// without keys are recorded, or none of them was taken.
	ErrKeylessUnproven = errors.New("too few capture requests without keys are recorded taken")
	// ErrKeyRefused: the archive refused the keys less than KeysQuiet
	// ago and no request with keys was taken since (see KeyRefusedSince).
	ErrKeyRefused = errors.New("the archive refused the capture requests' keys")
)

// Evidence is what the record says of the requests sent with keys, or
// without: how many were sent and how many the archive took, over every
// generation it keeps.
type Evidence struct {
	Sent, Taken int
}

// Evidence sums the requests recorded with keys (keyed) or without.
func (r *Record) Evidence(keyed bool) Evidence {
	var e Evidence
	for _, g := range r.Generations {
		for _, q := range g.Requested {
			if q.Keyed == keyed {
				e.Sent, e.Taken = e.Sent+q.Sent, e.Taken+q.Taken
			}
		}
	}
	return e
}

// RequestSuccess is the probability that one capture request to archive
// is taken that a plan may count on, with the evidence it rests on. With
// keys, it is measured on the requests recorded (placement.MeasuredSuccess:
// a prior of one in two until some are), unless the archive refused the
// keys lately (ErrKeyRefused). Without keys (the Internet Archive has
// refused programs without them since 2025), only once
// placement.PriorWeight requests are recorded and some were taken, as
// taken over sent (ErrKeylessUnproven), and never for KeysQuiet after a
// refusal (ErrKeylessRefused).
func (r *Record) RequestSuccess(archive string, keyed bool, now time.Time) (float64, Evidence, error) {
	e := r.Evidence(keyed)
	if keyed {
		if _, refused := r.KeyRefusedSince(archive, now); refused {
			return 0, e, ErrKeyRefused
		}
		return placement.MeasuredSuccess(e.Taken, e.Sent), e, nil
	}
	if _, refused := r.KeylessRefusedSince(archive, now); refused {
		return 0, e, ErrKeylessRefused
	}
	if e.Sent < placement.PriorWeight || e.Taken == 0 {
		return 0, e, ErrKeylessUnproven
	}
	return float64(e.Taken) / float64(e.Sent), e, nil
}

// RefusedKey records that archive refused the keys at at; requests with
// keys it takes later clear it (ObserveRequests).
func (r *Record) RefusedKey(archive string, at time.Time) {
	if r.KeyRefused == nil {
		r.KeyRefused = map[string]time.Time{}
	}
	r.KeyRefused[archive] = at.UTC()
}

// KeyRefusedSince reports when archive last refused the keys, if that
// was less than KeysQuiet before now and no request with keys was taken
// since.
func (r *Record) KeyRefusedSince(archive string, now time.Time) (time.Time, bool) {
	t, ok := r.KeyRefused[archive]
	return t, ok && now.Sub(t) < KeysQuiet
}
