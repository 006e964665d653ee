package sim

import (
	"errors"
	"fmt"
	"math"
)

// ErrInvalid is wrapped by every error about a bad Config.
var ErrInvalid = errors.New("invalid simulation config")

// Limits on Config values, so that a typo cannot ask for a simulation
// that never ends or exhausts memory.
const (
	MaxPages  = 5000
	MaxRuns   = 100_000
	MaxDays   = 3650
	MaxBackup = 1 << 30
)

// Config tunes Run. Start from DefaultConfig: the zero value is not
// usable (Pages, Days, Runs and Backup must be positive).
type Config struct {
	// Pages is the number of pages of the site, all of them carriers.
	// Defaults to 200; at most MaxPages.
	Pages int `json:"pages"`
	// Seed seeds every random choice; equal seeds give equal reports.
	// Defaults to 1.
	Seed uint64 `json:"seed"`
	// Days is how long generations are made, in days: one at day 0 and
	// one every ChangeEvery days before Days. Defaults to 180.
	Days float64 `json:"days"`
	// Backup is the ciphertext bytes of the server side, one segment.
	// Defaults to 2 MiB.
	Backup int64 `json:"backup_bytes"`
	// Runs is the number of simulated sites. Defaults to 200.
	Runs int `json:"runs"`
	// ChangeEvery is the days between server-side changes, each making a
	// new generation. Defaults to 30.
	ChangeEvery float64 `json:"change_every_days"`
	// MaxAge, when positive, is the age limit of make-before-break: a
	// replaced generation's blocks leave the pages MaxAge days after it
	// was replaced even if no newer one is recoverable. Defaults to 0:
	// no limit.
	MaxAge float64 `json:"max_age_days"`
	// History is the days of capture history the archive already has
	// before the first generation (what status can learn from at once).
	// Defaults to 0: none, so the first plan uses the default capture
	// probability of 0.5.
	History float64 `json:"history_days"`
	// Skew is σ of the log-normal spread of page capture intervals around
	// their depth's median: 0 gives every page of a depth the same rate.
	// Defaults to 1 (a skewed site: the 10% slowest pages are captured
	// 13 times less often than the 10% fastest of the same depth).
	Skew float64 `json:"skew"`
	// DepthFactor multiplies the capture interval per link hop from the
	// root. Defaults to 1.5.
	DepthFactor float64 `json:"depth_factor"`
	// SweepEvery is the mean days between whole-site sweeps of the
	// archive. Defaults to 60.
	SweepEvery float64 `json:"sweep_every_days"`
	// SweepShare is the share of each page's capture rate that comes from
	// sweeps (capped where a sweep would have to capture it for sure).
	// Defaults to 0.5.
	SweepShare float64 `json:"sweep_share"`
	// RequestSuccess is the probability that a capture request gets the
	// page captured. Defaults to 0.9.
	RequestSuccess float64 `json:"request_success"`
	// RequestDelay is the mean delay, in days, between a capture request
	// and the capture. Defaults to 2 hours.
	RequestDelay float64 `json:"request_delay_days"`
	// RequestAttempts is how many times a page is asked for while its
	// requests fail: again 10 minutes after the first failure, the pause
	// doubling (lazarus capture's defaults with wait = "1h": 3). The
	// lazarus-requests plan counts on them. Defaults to 3.
	RequestAttempts int `json:"request_attempts"`
	// Check is the days between status checks that let make-before-break
	// drop a replaced generation. Defaults to 1.
	Check float64 `json:"check_days"`
	// Target is the recoverability the lazarus plan aims for under the
	// capture probabilities it learned. Defaults to 0.999.
	Target float64 `json:"target"`
	// Workers is how many runs are simulated at once; 0 means GOMAXPROCS.
	// It does not change the report.
	Workers int `json:"-"`
}

// DefaultConfig returns the defaults documented on Config.
func DefaultConfig() Config {
	return Config{
		Pages:           200,
		Seed:            1,
		Days:            180,
		Backup:          2 << 20,
		Runs:            200,
		ChangeEvery:     30,
		Skew:            1,
		DepthFactor:     1.5,
		SweepEvery:      60,
		SweepShare:      0.5,
		RequestSuccess:  0.9,
		RequestDelay:    2.0 / 24,
		RequestAttempts: 3,
		Check:           1,
		Target:          0.999,
	}
}

// Validate reports the first unusable value, wrapping ErrInvalid.
func (c *Config) Validate() error {
	finite := func(xs ...float64) bool {
		for _, x := range xs {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return false
			}
		}
		return true
	}
	switch {
	case !finite(c.Days, c.ChangeEvery, c.MaxAge, c.History, c.Skew, c.DepthFactor, c.SweepEvery,
		c.SweepShare, c.RequestSuccess, c.RequestDelay, c.Check, c.Target):
		return fmt.Errorf("%w: every number must be finite", ErrInvalid)
	case c.Pages < 2 || c.Pages > MaxPages:
		return fmt.Errorf("%w: pages %d: want 2 to %d", ErrInvalid, c.Pages, MaxPages)
	case c.Runs < 1 || c.Runs > MaxRuns:
		return fmt.Errorf("%w: runs %d: want 1 to %d", ErrInvalid, c.Runs, MaxRuns)
	case !(c.Days > 0 && c.Days <= MaxDays):
		return fmt.Errorf("%w: days %g: want more than 0, at most %d", ErrInvalid, c.Days, MaxDays)
	case c.Backup < 1 || c.Backup > MaxBackup:
		return fmt.Errorf("%w: backup %d bytes: want 1 to %d", ErrInvalid, c.Backup, MaxBackup)
	case !(c.ChangeEvery >= 1):
		return fmt.Errorf("%w: change every %g days: want at least 1", ErrInvalid, c.ChangeEvery)
	case c.MaxAge < 0 || c.History < 0 || c.History > MaxDays:
		return fmt.Errorf("%w: max age and history must be 0 or more (history at most %d days)", ErrInvalid, MaxDays)
	case c.Skew < 0 || c.Skew > 5:
		return fmt.Errorf("%w: skew %g: want 0 to 5", ErrInvalid, c.Skew)
	case c.DepthFactor < 1 || c.DepthFactor > 10:
		return fmt.Errorf("%w: depth factor %g: want 1 to 10", ErrInvalid, c.DepthFactor)
	case !(c.SweepEvery > 0):
		return fmt.Errorf("%w: sweep every %g days: want more than 0", ErrInvalid, c.SweepEvery)
	case c.SweepShare < 0 || c.SweepShare > 1:
		return fmt.Errorf("%w: sweep share %g: want 0 to 1", ErrInvalid, c.SweepShare)
	case c.RequestSuccess < 0 || c.RequestSuccess > 1:
		return fmt.Errorf("%w: request success %g: want 0 to 1", ErrInvalid, c.RequestSuccess)
	case c.RequestAttempts < 1 || c.RequestAttempts > 10:
		return fmt.Errorf("%w: request attempts %d: want 1 to 10", ErrInvalid, c.RequestAttempts)
	case c.RequestDelay < 0 || c.Check < 0:
		return fmt.Errorf("%w: request delay and check period must be 0 or more", ErrInvalid)
	case !(c.Target > 0 && c.Target < 1):
		return fmt.Errorf("%w: target %g: want between 0 and 1", ErrInvalid, c.Target)
	case c.Workers < 0:
		return fmt.Errorf("%w: workers %d: want 0 or more", ErrInvalid, c.Workers)
	}
	return nil
}

// generations returns the days at which generations are published.
func (c *Config) generations() []float64 {
	var at []float64
	for i := 0; float64(i)*c.ChangeEvery < c.Days; i++ {
		at = append(at, float64(i)*c.ChangeEvery)
	}
	return at
}
