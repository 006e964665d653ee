package status

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// CaptureHorizon is the time within which Assessment.Capture gives
// each page's chance of being captured: a new generation should be safe
// within a month.
const CaptureHorizon = 30 * 24 * time.Hour

// MaxReportBytes bounds the status report ReadStatusReport reads, and
// maxCapturePages the pages it gives capture probabilities of.
const (
	MaxReportBytes  = 64 << 20
	maxCapturePages = 1_000_000
)

// ReadReport reads a report saved from `lazarus status --json`, for
// planning the next generation with what the audit learned (`lazarus
// inject --status`): each page's capture probability
// (Assessment.Capture) and the newest generation the archives hold
// enough of (RestorePoint). It reads at most 64 MiB and checks what inject
// uses: probabilities of page paths, generation ids.
func ReadReport(r io.Reader) (*Report, error) {
	body, err := io.ReadAll(io.LimitReader(r, MaxReportBytes+1))
	if err != nil {
		return nil, err
	}
	if len(body) > MaxReportBytes {
		return nil, fmt.Errorf("status report over %d MiB", MaxReportBytes>>20)
	}
	var rep Report
	if err := json.Unmarshal(body, &rep); err != nil {
		return nil, fmt.Errorf("not a status report (the JSON of a status audit): %w", err)
	}
	if rep.Site == "" || rep.Now.IsZero() {
		return nil, errors.New("not a status report (the JSON of a status audit): no site or time")
	}
	if rp := rep.RestorePoint; rp != nil {
		if _, err := manifest.ParseID(rp.Generation); err != nil {
			return nil, fmt.Errorf("status report: restore point %q is not a generation id", rp.Generation)
		}
	}
	if a := rep.Assessment; a != nil {
		if len(a.Capture) > maxCapturePages {
			return nil, fmt.Errorf("status report: capture probabilities of %d pages, more than %d", len(a.Capture), maxCapturePages)
		}
		for u, p := range a.Capture {
			if !(p >= 0 && p <= 1) || len(u) == 0 || u[0] != '/' {
				return nil, fmt.Errorf("status report: capture probability %v of page %q is not a probability of a page path", p, u)
			}
		}
	}
	return &rep, nil
}
