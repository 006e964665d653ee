package injector

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/humane"
	"github.com/lazarus-preserve/lazarus/internal/placement"
)

// Requests describes the capture requests that follow a run (lazarus
// capture, run by the deploy recipes after inject): every page carrying
// blocks may be asked for, up to Attempts times within Horizon, and each
// request is taken and captured with probability Success. A target plan
// with Requests is made for that horizon: each carrier page counts as
// captured within it with probability PageProbability (at most
// MaxCapture), whatever the archives would do on their own, which the
// plan does not count on (Capture is not used). The capture loop asks
// until every stripe holds k + margin blocks in the archive's listing,
// so a plan that reaches its target under this model needs no more
// than the blocks it places; Report.Requests says what it assumed.
type Requests struct {
	// Success is the probability that one request is taken by the
	// archive, in (0, 1]: measured on Sent earlier requests (taken over
	// sent, with a prior of PriorSuccess weighing PriorWeight requests),
	// else PriorSuccess.
	Success float64 `json:"success"`
	Sent    int     `json:"sent"`
	// Attempts is how many requests the loop makes for a page within
	// Horizon, at least 1 (lazarus capture's attempts, as far as its
	// wait and retry schedule reach within the horizon).
	Attempts int `json:"attempts"`
	// Horizon is the time the plan is made for, more than zero
	// (horizon_seconds in JSON).
	Horizon time.Duration `json:"-"`
}

// requestsJSON is Requests in JSON, the horizon in seconds.
type requestsJSON struct {
	Success        float64 `json:"success"`
	Sent           int     `json:"sent"`
	Attempts       int     `json:"attempts"`
	HorizonSeconds float64 `json:"horizon_seconds"`
}

// MarshalJSON writes the horizon in seconds.
func (q Requests) MarshalJSON() ([]byte, error) {
	return json.Marshal(requestsJSON{q.Success, q.Sent, q.Attempts, q.Horizon.Seconds()})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (q *Requests) UnmarshalJSON(b []byte) error {
	var v requestsJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*q = Requests{Success: v.Success, Sent: v.Sent, Attempts: v.Attempts, Horizon: time.Duration(v.HorizonSeconds * float64(time.Second))}
	return nil
}

// DefaultRequestsTarget is the target of a plan counting on requests
// when none is given: recoverable within the horizon (a day) with 0.99.
// A generation that misses it is not lost: make-before-break keeps the
// one before it on the pages until lazarus capture confirms the new one,
// so a miss costs time, not the restore point.
const DefaultRequestsTarget = placement.RequestsTarget

// DefaultRequestsHorizon is the horizon a plan counting on capture
// requests is made for: the archives should hold the generation within a
// day of its publication, confirmed by the capture loop's audit.
const DefaultRequestsHorizon = 24 * time.Hour

// The prior of a request's success before any is recorded: a coin toss,
// worth PriorWeight requests once some are.
const (
	PriorSuccess = placement.PriorSuccess
	PriorWeight  = placement.PriorWeight
)

// MeasuredSuccess is the success of a request after sent requests of
// which taken were taken by the archive: their ratio pulled towards
// PriorSuccess by PriorWeight requests.
func MeasuredSuccess(taken, sent int) float64 { return placement.MeasuredSuccess(taken, sent) }

// PageProbability is the probability that a page asked for up to
// Attempts times is captured within the horizon: 1 − (1 − Success)^Attempts,
// each request taken independently.
func (q *Requests) PageProbability() float64 {
	return placement.RequestedCapture(q.Success, q.Attempts)
}

// validate checks the fields.
func (q *Requests) validate() error {
	switch {
	case !(q.Success > 0 && q.Success <= 1):
		return optionErrorf("Requests", "request success %g is outside (0, 1]", q.Success)
	case q.Attempts < 1:
		return optionErrorf("Requests", "%d attempts: want 1 or more", q.Attempts)
	case q.Horizon <= 0:
		return optionErrorf("Requests", "horizon %v: want more than zero", q.Horizon)
	case q.Sent < 0:
		return optionErrorf("Requests", "%d requests sent: want 0 or more", q.Sent)
	}
	return nil
}

// planCapture is the capture probability of each carrier the plan
// counts on: with Requests, every carrier's PageProbability; otherwise
// Capture's estimates. Either is at most MaxCapture.
func (o *Options) planCapture(carriers []string) map[string]float64 {
	if o.Requests == nil {
		return o.capture()
	}
	p := min(o.Requests.PageProbability(), MaxCapture)
	out := make(map[string]float64, len(carriers))
	for _, u := range carriers {
		out[u] = p
	}
	return out
}

// String says what the plan assumed, as inject prints it.
func (q *Requests) String() string {
	from := fmt.Sprintf("measured on %d earlier requests", q.Sent)
	if q.Sent == 0 {
		from = "a prior until requests are recorded"
	}
	return fmt.Sprintf("each carrier page captured within %s with %.1f%% (up to %s, each taken with %.0f%%: %s)",
		humane.Duration(q.Horizon), 100*min(q.PageProbability(), MaxCapture), humane.Count(q.Attempts, "request"), 100*q.Success, from)
}

// RequestsAlternative is what counting on capture requests would change
// for a target plan that does not (Report.WithRequests): the plan made
// for them, with the prior (PriorRequests) and DefaultRequestsTarget.
type RequestsAlternative struct {
	Requests *Requests `json:"requests"`
	// Share is its planned bytes over this plan's (manifest room and
	// earlier generations' blocks included in both).
	Share float64 `json:"bytes_share"`
	// Recoverability is its figure within Requests' horizon.
	Recoverability float64 `json:"recoverability"`
	plan           *placement.Plan
}

// PriorRequests is what a site with keys and no requests recorded can
// count on: each request taken with PriorSuccess, asked up to 3 times
// within a day (lazarus capture's attempts and retry with wait = "1h").
func PriorRequests() *Requests {
	return &Requests{Success: PriorSuccess, Attempts: 3, Horizon: 24 * time.Hour}
}

// requestsAlternative plans segs as counting on PriorRequests would,
// for a target plan that counts on none; nil otherwise, or if that plan
// fails. It sets the run's generation and carrier count, as any plan
// does: the run's own plan is made after it.
func (r *run) requestsAlternative(segs []segmentInfo, changed bool) *RequestsAlternative {
	if r.o.Target == 0 || r.o.Requests != nil {
		return nil
	}
	o := r.o
	defer func() { r.o = o }()
	alt := *r.o
	alt.Requests, alt.Target = PriorRequests(), DefaultRequestsTarget
	r.o = &alt
	p, _, err := r.placeAs(segs, changed, false)
	if err != nil {
		return nil
	}
	return &RequestsAlternative{Requests: alt.Requests, Recoverability: p.Recoverability, plan: p}
}

// planBytes is the bytes a plan adds to the pages.
func planBytes(p *placement.Plan) int64 {
	var n int64
	for _, b := range p.Bytes {
		n += int64(b)
	}
	return n
}
