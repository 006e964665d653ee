package injector

import (
	"fmt"
	"strconv"
)

// The words SetRedundancy accepts besides a ratio.
const (
	// RedundancyAuto plans by Target: the fewest bytes that reach it.
	RedundancyAuto = "auto"
	// RedundancyMax plans by Target, then adds what spare room allows
	// (Options.Fill): parity until every stripe spans every page, copies
	// of blocks on pages without any, within PageBudget.
	RedundancyMax = "max"
)

// SetRedundancy sets how the plan chooses parity from the word a user
// gives (`lazarus inject --redundancy`, the Caddyfile's redundancy):
// "auto" plans by Target (DefaultTarget if none is set), "max" plans by
// Target and then uses spare room (Fill), so it never protects less than
// auto, and a ratio such as "1.5" fixes the parity blocks per data block
// (Target zero, no Fill).
func (o *Options) SetRedundancy(v string) error {
	switch v {
	case RedundancyAuto:
		if o.Target == 0 {
			o.Target = DefaultTarget
		}
		o.Fill = false
		return nil
	case RedundancyMax:
		if o.Target == 0 {
			o.Target = DefaultTarget
		}
		o.Fill = true
		return nil
	}
	r, err := strconv.ParseFloat(v, 64)
	if err != nil || !(r >= 0.01 && r <= 255) {
		return fmt.Errorf("redundancy %q: want auto, max or a ratio from 0.01 to 255 such as 1.0", v)
	}
	o.Target, o.Fill, o.Redundancy = 0, false, r
	return nil
}

// RedundancyName is the word SetRedundancy takes for o's policy.
func (o *Options) RedundancyName() string {
	switch {
	case o.Fill:
		return RedundancyMax
	case o.Target > 0:
		return RedundancyAuto
	}
	return strconv.FormatFloat(o.Redundancy, 'g', -1, 64)
}
