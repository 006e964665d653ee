package sim

import (
	"errors"
	"math"
	"testing"
)

func TestConfigValidate(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	tests := []struct {
		name string
		edit func(*Config)
	}{
		{"one page", func(c *Config) { c.Pages = 1 }},
		{"too many pages", func(c *Config) { c.Pages = MaxPages + 1 }},
		{"no runs", func(c *Config) { c.Runs = 0 }},
		{"no days", func(c *Config) { c.Days = 0 }},
		{"NaN days", func(c *Config) { c.Days = math.NaN() }},
		{"infinite history", func(c *Config) { c.History = math.Inf(1) }},
		{"empty backup", func(c *Config) { c.Backup = 0 }},
		{"huge backup", func(c *Config) { c.Backup = MaxBackup + 1 }},
		{"changes under a day apart", func(c *Config) { c.ChangeEvery = 0.5 }},
		{"negative age limit", func(c *Config) { c.MaxAge = -1 }},
		{"negative skew", func(c *Config) { c.Skew = -0.1 }},
		{"depth factor below 1", func(c *Config) { c.DepthFactor = 0.9 }},
		{"no sweeps", func(c *Config) { c.SweepEvery = 0 }},
		{"sweep share over 1", func(c *Config) { c.SweepShare = 1.1 }},
		{"request success over 1", func(c *Config) { c.RequestSuccess = 2 }},
		{"negative delay", func(c *Config) { c.RequestDelay = -1 }},
		{"target 1", func(c *Config) { c.Target = 1 }},
		{"negative workers", func(c *Config) { c.Workers = -1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig()
			tt.edit(&c)
			if err := c.Validate(); !errors.Is(err, ErrInvalid) {
				t.Errorf("got %v, want ErrInvalid", err)
			}
		})
	}
}

func TestGenerations(t *testing.T) {
	c := DefaultConfig()
	c.Days, c.ChangeEvery = 70, 30
	got := c.generations()
	if len(got) != 3 || got[0] != 0 || got[1] != 30 || got[2] != 60 {
		t.Errorf("generations %v, want [0 30 60]", got)
	}
}
