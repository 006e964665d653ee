package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/lazarus-preserve/lazarus/injector"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// redundancyFlag is --redundancy: auto, max or a ratio
// (injector.Options.SetRedundancy).
type redundancyFlag struct {
	o   *injector.Options
	set *bool
}

func (f redundancyFlag) String() string {
	if f.o == nil {
		return ""
	}
	return f.o.RedundancyName()
}

func (f redundancyFlag) Set(v string) error {
	*f.set = true
	return f.o.SetRedundancy(v)
}

// targetFlag is --target: a probability as 0.999 or 99.9%.
type targetFlag struct {
	o   *injector.Options
	set *bool
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
	*f.set = true
	f.o.Target, f.o.Fill = t, false
	return nil
}

// parseTarget reads a recoverability target: 0.999 or "99.9%", in (0, 1).
func parseTarget(v string) (float64, error) {
	s, pct := strings.CutSuffix(strings.TrimSpace(v), "%")
	t, err := strconv.ParseFloat(s, 64)
	if pct {
		t /= 100
	}
	if err != nil || !(t > 0 && t < 1) {
		return 0, fmt.Errorf("target %q: want a probability in (0, 1) such as 0.999 or 99.9%%", v)
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
	rep, err := lzrecover.ReadStatusReport(f)
	if err != nil {
		return fmt.Errorf("--status %s: %w (save one with lazarus status --json > FILE)", path, err)
	}
	if o.SiteURL != "" && !lzrecover.SameSite(rep.Site, o.SiteURL) {
		return fmt.Errorf("--status %s: a report on %s, not on --site-url %s", path, rep.Site, o.SiteURL)
	}
	o.Archived = &injector.Archived{}
	if rp := rep.RestorePoint; rp != nil {
		o.Archived.RestorePoint = rp.Generation
	}
	if a := rep.Assessment; a != nil && len(a.Capture) > 0 {
		o.Capture = a.Capture
	} else {
		fmt.Fprintf(stderr, "lazarus: warning: --status %s holds no capture probabilities (the model did not run: give status the serve history); pages are planned as kept with probability 1/2\n", path)
	}
	return nil
}
