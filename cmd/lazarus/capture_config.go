package main

import (
	"fmt"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/spn"
)

// captureConfig is the [capture] table of lazarus.toml: lazarus capture's
// settings, the flag names in snake_case, for the deploy recipes' line
// `lazarus capture --config lazarus.toml`. inject reads and checks it
// too (an unknown setting is an error there as anywhere) but uses none
// of it. Durations are strings such as "10m"; relative paths are
// relative to the file.
type captureConfig struct {
	Requests      string   `toml:"requests"`
	AccessKeyFile string   `toml:"access_key_file"`
	SPN           string   `toml:"spn"`
	Source        []string `toml:"source"`
	History       []string `toml:"history"`
	Contact       string   `toml:"contact"`
	Rate          string   `toml:"rate"`
	Pending       int      `toml:"pending"`
	Margin        *int     `toml:"margin"`
	Max           int      `toml:"max"`
	Attempts      int      `toml:"attempts"`
	Wait          string   `toml:"wait"`
	WaitEvery     string   `toml:"wait_every"`
	WaitLive      string   `toml:"wait_live"`
	Retry         string   `toml:"retry"`
	Grace         string   `toml:"grace"`
	SiteRate      float64  `toml:"site_rate"`
	ArchiveRate   float64  `toml:"archive_rate"`
}

// The --requests modes.
const (
	// requestsAuto: with the key pair file, requests with keys; without,
	// requests without keys (the archive may refuse them).
	requestsAuto = "auto"
	// requestsKeyed: requests with keys only; without a key pair file,
	// none.
	requestsKeyed = "keyed"
	// requestsOff: no requests; the archives are audited and what they
	// hold recorded (confirmation only).
	requestsOff = "off"
)

// check refuses bad values in the table, naming the setting.
func (c *captureConfig) check() error {
	switch c.Requests {
	case "", requestsAuto, requestsKeyed, requestsOff:
	default:
		return fmt.Errorf("capture.requests %q: want auto, keyed or off", c.Requests)
	}
	if c.Rate != "" {
		if _, err := spn.ParseLimit(c.Rate); err != nil {
			return fmt.Errorf("capture.%w", err)
		}
	}
	for _, d := range []struct {
		name, v  string
		positive bool
	}{{"wait", c.Wait, false}, {"wait_live", c.WaitLive, false}, {"wait_every", c.WaitEvery, true}, {"retry", c.Retry, true}, {"grace", c.Grace, true}} {
		if d.v == "" {
			continue
		}
		if v, err := time.ParseDuration(d.v); err != nil || v < 0 || d.positive && v == 0 {
			return fmt.Errorf("capture.%s %q: want a duration such as 10m (more than 0 for wait_every, retry and grace)", d.name, d.v)
		}
	}
	margin := 0
	if c.Margin != nil {
		margin = *c.Margin
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"pending", float64(c.Pending)}, {"max", float64(c.Max)}, {"attempts", float64(c.Attempts)}, {"margin", float64(margin)},
		{"site_rate", c.SiteRate}, {"archive_rate", c.ArchiveRate}} {
		if f.v < 0 {
			return fmt.Errorf("capture.%s %v: want 0 or more", f.name, f.v)
		}
	}
	return nil
}

// duration is v parsed (checked by check), or d when v is empty.
func duration(v string, d time.Duration) time.Duration {
	if v == "" {
		return d
	}
	p, _ := time.ParseDuration(v)
	return p
}

// orDefault is v, or d when v is the zero value.
func orDefault[T comparable](v, d T) T {
	var zero T
	if v == zero {
		return d
	}
	return v
}
