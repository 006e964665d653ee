package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/siteurl"
)

// redundancyFlag is --redundancy: auto, max or a ratio
// (injector.Options.SetRedundancy); word keeps what was given.
type redundancyFlag struct {
	o    *injector.Options
	word *string
}

func (f redundancyFlag) String() string {
	if f.o == nil {
		return ""
	}
	return f.o.RedundancyName()
}

func (f redundancyFlag) Set(v string) error {
	*f.word = v
	return f.o.SetRedundancy(v)
}

// fixedRatio reports whether a --redundancy word is a ratio (not auto or
// max), which does not combine with --target.
func fixedRatio(word string) bool {
	return word != "" && word != injector.RedundancyAuto && word != injector.RedundancyMax
}

// targetFlag is --target: a probability as 0.999 or 99.9%; given keeps
// the value (a later --redundancy word must not lose it).
type targetFlag struct {
	o     *injector.Options
	given *float64
}

func (f targetFlag) String() string {
	if f.o == nil || f.o.Target == 0 {
		return ""
	}
	return strconv.FormatFloat(f.o.Target, 'g', -1, 64)
}

func (f targetFlag) Set(v string) error {
	t, err := parseTarget(v)
	if err != nil {
		return err
	}
	*f.given = t
	f.o.Target = t
	return nil
}

// parseTarget reads a recoverability target: 0.999 or "99.9%", in (0, 1).
func parseTarget(v string) (float64, error) {
	s, pct := strings.CutSuffix(strings.TrimSpace(v), "%")
	t, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if pct {
		t /= 100
	}
	t = math.Round(t*1e12) / 1e12 // 99.99% is 0.9999, not 0.9998999999999999
	if err != nil || !(t >= 0.01 && t <= 0.999999999) {
		return 0, fmt.Errorf("target %q: want a probability from 0.01 to 0.999999999, such as 0.999 or 99.9%%", v)
	}
	return t, nil
}

// readStatus reads a saved status report (--status): the pages' capture
// probabilities, and the newest generation the archives hold, which
// decides the earlier generations inject keeps on the pages.
func readStatus(path string, o *injector.Options, stderr io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("--status: %w", err)
	}
	defer f.Close()
	switch info, err := f.Stat(); {
	case err != nil:
		return fmt.Errorf("--status: %w", err)
	case !info.Mode().IsRegular():
		return fmt.Errorf("--status %s: not a regular file (save one with lazarus status --json > FILE)", path)
	case info.Size() > status.MaxReportBytes:
		return fmt.Errorf("--status %s: %d bytes, more than a status report's %d MiB", path, info.Size(), status.MaxReportBytes>>20)
	}
	rep, err := status.ReadReport(f)
	if err != nil {
		return fmt.Errorf("--status %s: %w (save one with lazarus status --json > FILE)", path, err)
	}
	if o.SiteURL != "" && !siteurl.SameSiteURLs(rep.Site, o.SiteURL) {
		return fmt.Errorf("--status %s: a report on %s, not on --site-url %s", path, rep.Site, o.SiteURL)
	}
	switch age := time.Since(rep.Now); {
	case age < -24*time.Hour:
		fmt.Fprintf(stderr, "lazarus: warning: --status %s is dated %s, in the future\n", path, rep.Now.UTC().Format(time.RFC3339))
	case age > 90*24*time.Hour:
		fmt.Fprintf(stderr, "lazarus: warning: --status %s is %d days old: run lazarus status again for what the archives hold now\n", path, int(age.Hours()/24))
	}
	o.Archived = &injector.Archived{}
	if rp := rep.RestorePoint; rp != nil {
		o.Archived.RestorePoint = rp.Generation
	}
	if a := rep.Assessment; a != nil && len(a.Capture) > 0 {
		o.Capture = a.Capture
	} else {
		why := "the model did not run"
		if a := rep.Assessment; a != nil && a.Error != "" {
			why += ": " + a.Error
		}
		fmt.Fprintf(stderr, "lazarus: warning: --status %s holds no capture probabilities (%s); pages are planned as kept with probability 1/2\n", path, printable(why))
	}
	return nil
}

// parseDays reads a duration as time.ParseDuration does, and also whole
// or fractional days ("90d", "1.5d"), as Caddy's durations and the
// simulator take them.
func parseDays(v string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(v, "d"); ok {
		d, err := strconv.ParseFloat(n, 64)
		if err != nil || math.IsNaN(d) || math.Abs(d) > 100*365 {
			return 0, fmt.Errorf("invalid duration %q", v)
		}
		return time.Duration(d * 24 * float64(time.Hour)), nil
	}
	return time.ParseDuration(v)
}

// daysFlag is a duration flag that takes days too (parseDays).
type daysFlag struct{ d *time.Duration }

func (f daysFlag) String() string {
	if f.d == nil || *f.d == 0 {
		return ""
	}
	return f.d.String()
}

func (f daysFlag) Set(v string) error {
	d, err := parseDays(v)
	if err != nil || d < 0 {
		return fmt.Errorf("want a duration of 0 or more, such as 90d or 2160h")
	}
	*f.d = d
	return nil
}
