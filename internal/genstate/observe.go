package genstate

import (
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"
)

// KeysQuiet is how long requests without keys are not tried again after
// an archive refused them (spn.ErrKeysRequired): a week, so a site
// without keys costs the archive one refused request a week at most.
const KeysQuiet = 7 * 24 * time.Hour

// ObserveAudit records what an audit made at at found (a status report):
// when it ran, its restore point and, for every generation it judged,
// whether the archives combined hold it (Confirmed, kept from the first
// audit that found it, cleared when one no longer does) and which
// archives hold it on their own (ConfirmedIn, each with the first audit
// that found it). Generations the record lacks are added, published at
// their manifest's time.
func (r *Record) ObserveAudit(rep *status.Report, at time.Time) {
	at = at.UTC()
	r.Audited, r.RestorePoint = at, ""
	if rep.RestorePoint != nil {
		r.RestorePoint = rep.RestorePoint.Generation
	}
	for _, g := range rep.Generations {
		e := r.Ensure(g.ID, g.Time)
		switch {
		case !g.Recoverable:
			e.Confirmed = time.Time{}
		case e.Confirmed.IsZero():
			e.Confirmed = at
		}
		seen := map[string]time.Time{}
		for _, c := range e.ConfirmedIn {
			seen[c.Archive] = c.Seen
		}
		e.ConfirmedIn = nil
		for _, h := range g.HeldBy {
			c := Confirmation{Archive: h.Source, Seen: at, Since: h.Since.UTC()}
			if t, ok := seen[h.Source]; ok {
				c.Seen = t
			}
			e.ConfirmedIn = append(e.ConfirmedIn, c)
		}
	}
}

// ObserveRequests adds one run's requests to an archive (req's Archive)
// for generation id, published at published if the record lacks it.
// Requests with keys that the archive took clear its refusal of the keys
// (RefusedKey).
func (r *Record) ObserveRequests(id string, published time.Time, req Request) {
	if req.Sent == 0 {
		return
	}
	if req.Keyed && req.Taken > 0 {
		delete(r.KeyRefused, req.Archive)
	}
	e := r.Ensure(id, published)
	req.First, req.Last = req.First.UTC(), req.Last.UTC()
	for i := range e.Requested {
		p := &e.Requested[i]
		if p.Archive != req.Archive {
			continue
		}
		p.Keyed = req.Keyed
		p.Sent += req.Sent
		p.Taken += req.Taken
		p.bound()
		if req.First.Before(p.First) {
			p.First = req.First
		}
		if req.Last.After(p.Last) {
			p.Last = req.Last
		}
		return
	}
	req.bound()
	e.Requested = append(e.Requested, req)
}

// bound halves the counts, keeping their ratio, while more than
// MaxRequestsCounted were sent: a generation asked for hourly for years
// keeps a record Read accepts.
func (q *Request) bound() {
	for q.Sent > MaxRequestsCounted {
		q.Sent, q.Taken = q.Sent/2, q.Taken/2
	}
}

// ObserveLive records that the live site served generation id at at.
func (r *Record) ObserveLive(id string, published, at time.Time) {
	if e := r.Ensure(id, published); e.Live.IsZero() {
		e.Live = at.UTC()
	}
}

// RefusedKeyless records that archive refused requests without keys at
// at.
func (r *Record) RefusedKeyless(archive string, at time.Time) {
	if r.KeysRequired == nil {
		r.KeysRequired = map[string]time.Time{}
	}
	r.KeysRequired[archive] = at.UTC()
}

// KeylessRefusedSince reports when archive last refused requests without
// keys, if that was less than KeysQuiet before now.
func (r *Record) KeylessRefusedSince(archive string, now time.Time) (time.Time, bool) {
	t, ok := r.KeysRequired[archive]
	return t, ok && now.Sub(t) < KeysQuiet
}
