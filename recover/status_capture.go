package recover

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/assure"
)

// CaptureHorizon is the time within which StatusAssessment.Capture gives
// each page's chance of being captured: a new generation should be safe
// within a month.
const CaptureHorizon = 30 * 24 * time.Hour

// maxCaptureReport bounds the status report ReadCapture reads.
const maxCaptureReport = 64 << 20

// captureProbabilities turns the model's capture rates (per page and
// archive, per day) into the probability that some archive captures each
// page within CaptureHorizon: 1 − exp(−Σ_archives κ·H), pages named as
// inject names them (canonicalPage).
func captureProbabilities(rates []assure.PageRate) map[string]float64 {
	sum := map[string]float64{}
	for _, pr := range rates {
		if pr.Rate > 0 && !math.IsInf(pr.Rate, 0) {
			sum[canonicalPage(pr.URL)] += pr.Rate
		} else if _, ok := sum[canonicalPage(pr.URL)]; !ok {
			sum[canonicalPage(pr.URL)] = 0
		}
	}
	days := CaptureHorizon.Hours() / 24
	out := make(map[string]float64, len(sum))
	for u, k := range sum {
		out[u] = -math.Expm1(-k * days)
	}
	return out
}

// ErrNoCapture means a status report holds no capture probabilities: the
// model did not run (see StatusAssessment.Error), or the report is not a
// status report.
var ErrNoCapture = errors.New("the status report holds no capture probabilities")

// ReadCapture reads the capture probabilities of a report saved from
// `lazarus status --json` (StatusAssessment.Capture), for planning a
// generation on the pages the archives keep (`lazarus inject --rates`).
// It reads at most 64 MiB and checks every value.
func ReadCapture(r io.Reader) (map[string]float64, error) {
	body, err := io.ReadAll(io.LimitReader(r, maxCaptureReport+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxCaptureReport {
		return nil, fmt.Errorf("status report over %d MiB", maxCaptureReport>>20)
	}
	var rep struct {
		Site       string `json:"site"`
		Assessment *struct {
			Capture map[string]float64 `json:"capture"`
			Error   string             `json:"error"`
		} `json:"assessment"`
	}
	if err := json.Unmarshal(body, &rep); err != nil {
		return nil, fmt.Errorf("not a status report (lazarus status --json): %w", err)
	}
	switch a := rep.Assessment; {
	case a == nil:
		return nil, fmt.Errorf("%w: it has no assessment", ErrNoCapture)
	case len(a.Capture) == 0 && a.Error != "":
		return nil, fmt.Errorf("%w: the model did not run: %s", ErrNoCapture, a.Error)
	case len(a.Capture) == 0:
		return nil, ErrNoCapture
	}
	for u, p := range rep.Assessment.Capture {
		if !(p >= 0 && p <= 1) || len(u) == 0 || u[0] != '/' {
			return nil, fmt.Errorf("status report: capture probability %v of page %q is not a probability of a page path", p, u)
		}
	}
	return rep.Assessment.Capture, nil
}
