package status

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
func (p RestorePoint) MarshalJSON() ([]byte, error) {
	type plain RestorePoint
	return json.Marshal(struct {
		plain
		Age float64 `json:"age_seconds"`
	}{plain(p), seconds(p.Age)})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (p *RestorePoint) UnmarshalJSON(b []byte) error {
	type plain RestorePoint
	var v struct {
		plain
		Age float64 `json:"age_seconds"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*p = RestorePoint(v.plain)
	p.Age = fromSeconds(v.Age)
	return nil
}

// MarshalJSON encodes ReachIn as "reach_in_seconds".
func (m ModelView) MarshalJSON() ([]byte, error) {
	type plain ModelView
	return json.Marshal(struct {
		plain
		ReachIn float64 `json:"reach_in_seconds"`
	}{plain(m), seconds(m.ReachIn)})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (m *ModelView) UnmarshalJSON(b []byte) error {
	type plain ModelView
	var v struct {
		plain
		ReachIn float64 `json:"reach_in_seconds"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*m = ModelView(v.plain)
	m.ReachIn = fromSeconds(v.ReachIn)
	return nil
}

// MarshalJSON encodes After as "after_seconds".
func (p Probability) MarshalJSON() ([]byte, error) {
	type plain Probability
	return json.Marshal(struct {
		plain
		After float64 `json:"after_seconds"`
	}{plain(p), seconds(p.After)})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (p *Probability) UnmarshalJSON(b []byte) error {
	type plain Probability
	var v struct {
		plain
		After float64 `json:"after_seconds"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*p = Probability(v.plain)
	p.After = fromSeconds(v.After)
	return nil
}

// MarshalJSON encodes ReachIn as "reach_in_seconds".
func (s SegmentOutlook) MarshalJSON() ([]byte, error) {
	type plain SegmentOutlook
	return json.Marshal(struct {
		plain
		ReachIn float64 `json:"reach_in_seconds"`
	}{plain(s), seconds(s.ReachIn)})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (s *SegmentOutlook) UnmarshalJSON(b []byte) error {
	type plain SegmentOutlook
	var v struct {
		plain
		ReachIn float64 `json:"reach_in_seconds"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = SegmentOutlook(v.plain)
	s.ReachIn = fromSeconds(v.ReachIn)
	return nil
}

// MarshalJSON encodes the exposures and the prior as "_seconds" fields.
func (e Evidence) MarshalJSON() ([]byte, error) {
	type plain Evidence
	return json.Marshal(struct {
		plain
		Shortest float64 `json:"shortest_exposure_seconds"`
		Median   float64 `json:"median_exposure_seconds"`
		Interval float64 `json:"prior_interval_seconds"`
		Weight   float64 `json:"prior_weight_seconds"`
	}{plain(e), seconds(e.ShortestExposure), seconds(e.MedianExposure), seconds(e.PriorInterval), seconds(e.PriorWeight)})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (e *Evidence) UnmarshalJSON(b []byte) error {
	type plain Evidence
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
	*e = Evidence(v.plain)
	e.ShortestExposure, e.MedianExposure = fromSeconds(v.Shortest), fromSeconds(v.Median)
	e.PriorInterval, e.PriorWeight = fromSeconds(v.Interval), fromSeconds(v.Weight)
	return nil
}
