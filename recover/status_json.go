package recover

import (
	"encoding/json"
	"math"
	"time"
)

// The report's durations are time.Duration in Go and float seconds in
// JSON ("_seconds" fields), as lazarus verify reports them. Each type
// holding one encodes through a copy of itself without methods (plain),
// whose duration field the outer field of the same JSON name shadows.

// seconds is d in float seconds.
func seconds(d time.Duration) float64 { return d.Seconds() }

// fromSeconds is s seconds as a duration, clamped to the durations that
// exist (a NaN is 0).
func fromSeconds(s float64) time.Duration {
	ns := s * float64(time.Second)
	switch {
	case math.IsNaN(ns):
		return 0
	case ns >= math.MaxInt64:
		return math.MaxInt64
	case ns <= math.MinInt64:
		return math.MinInt64
	}
	return time.Duration(math.Round(ns))
}

// MarshalJSON encodes Age as "age_seconds".
func (p StatusRestorePoint) MarshalJSON() ([]byte, error) {
	type plain StatusRestorePoint
	return json.Marshal(struct {
		plain
		Age float64 `json:"age_seconds"`
	}{plain(p), seconds(p.Age)})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (p *StatusRestorePoint) UnmarshalJSON(b []byte) error {
	type plain StatusRestorePoint
	var v struct {
		plain
		Age float64 `json:"age_seconds"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*p = StatusRestorePoint(v.plain)
	p.Age = fromSeconds(v.Age)
	return nil
}

// MarshalJSON encodes ReachIn as "reach_in_seconds".
func (m StatusModelView) MarshalJSON() ([]byte, error) {
	type plain StatusModelView
	return json.Marshal(struct {
		plain
		ReachIn float64 `json:"reach_in_seconds"`
	}{plain(m), seconds(m.ReachIn)})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (m *StatusModelView) UnmarshalJSON(b []byte) error {
	type plain StatusModelView
	var v struct {
		plain
		ReachIn float64 `json:"reach_in_seconds"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*m = StatusModelView(v.plain)
	m.ReachIn = fromSeconds(v.ReachIn)
	return nil
}

// MarshalJSON encodes After as "after_seconds".
func (p StatusProbability) MarshalJSON() ([]byte, error) {
	type plain StatusProbability
	return json.Marshal(struct {
		plain
		After float64 `json:"after_seconds"`
	}{plain(p), seconds(p.After)})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (p *StatusProbability) UnmarshalJSON(b []byte) error {
	type plain StatusProbability
	var v struct {
		plain
		After float64 `json:"after_seconds"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*p = StatusProbability(v.plain)
	p.After = fromSeconds(v.After)
	return nil
}

// MarshalJSON encodes ReachIn as "reach_in_seconds".
func (s StatusSegmentOutlook) MarshalJSON() ([]byte, error) {
	type plain StatusSegmentOutlook
	return json.Marshal(struct {
		plain
		ReachIn float64 `json:"reach_in_seconds"`
	}{plain(s), seconds(s.ReachIn)})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (s *StatusSegmentOutlook) UnmarshalJSON(b []byte) error {
	type plain StatusSegmentOutlook
	var v struct {
		plain
		ReachIn float64 `json:"reach_in_seconds"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = StatusSegmentOutlook(v.plain)
	s.ReachIn = fromSeconds(v.ReachIn)
	return nil
}

// MarshalJSON encodes the exposures and the prior as "_seconds" fields.
func (e StatusEvidence) MarshalJSON() ([]byte, error) {
	type plain StatusEvidence
	return json.Marshal(struct {
		plain
		Shortest float64 `json:"shortest_exposure_seconds"`
		Median   float64 `json:"median_exposure_seconds"`
		Interval float64 `json:"prior_interval_seconds"`
		Weight   float64 `json:"prior_weight_seconds"`
	}{plain(e), seconds(e.ShortestExposure), seconds(e.MedianExposure), seconds(e.PriorInterval), seconds(e.PriorWeight)})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (e *StatusEvidence) UnmarshalJSON(b []byte) error {
	type plain StatusEvidence
	var v struct {
		plain
		Shortest float64 `json:"shortest_exposure_seconds"`
		Median   float64 `json:"median_exposure_seconds"`
		Interval float64 `json:"prior_interval_seconds"`
		Weight   float64 `json:"prior_weight_seconds"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*e = StatusEvidence(v.plain)
	e.ShortestExposure, e.MedianExposure = fromSeconds(v.Shortest), fromSeconds(v.Median)
	e.PriorInterval, e.PriorWeight = fromSeconds(v.Interval), fromSeconds(v.Weight)
	return nil
}
