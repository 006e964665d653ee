package main

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// injectConfig is the --config file of inject: the same settings as the
// flags, with the flag names in snake_case. Relative paths are relative to
// the config file. Unknown keys are errors.
//
//	site_url = "https://example.org/"
//	key = "/etc/lazarus/server.key"
//	include = ["app", "/etc/myapp=config"]
//	exclude = ["*.log", "cache/"]
//	site = "public"
//	max_block_bytes = "48KiB"
//	[dump]
//	db = "mysqldump --single-transaction app"
type injectConfig struct {
	SiteURL        string            `toml:"site_url"`
	Key            string            `toml:"key"`
	PassphraseFile string            `toml:"passphrase_file"`
	Public         bool              `toml:"public"`
	Include        []string          `toml:"include"`
	Exclude        []string          `toml:"exclude"`
	Dump           map[string]string `toml:"dump"`
	DumpTimeout    string            `toml:"dump_timeout"`
	AllOrNothing   bool              `toml:"all_or_nothing"`
	MaxBlockBytes  tomlSize          `toml:"max_block_bytes"`
	PageBudget     tomlSize          `toml:"page_budget"`
	MaxPageBytes   tomlSize          `toml:"max_page_bytes"`
	Redundancy     *float64          `toml:"redundancy"`
	KeepPrevious   *int              `toml:"keep_previous"`
	Site           string            `toml:"site"`
	Bundle         string            `toml:"bundle"`
	Snippets       string            `toml:"snippets"`
	URLs           string            `toml:"urls"`
	State          string            `toml:"state"`
	Notice         string            `toml:"notice"`
}

// tomlSize accepts 49152 or "48KiB".
type tomlSize struct {
	set bool
	n   int
}

// UnmarshalTOML implements toml.Unmarshaler.
func (s *tomlSize) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case int64:
		s.n, s.set = int(x), true
		return nil
	case string:
		n, err := parseSize(x)
		s.n, s.set = n, err == nil
		return err
	}
	return fmt.Errorf("size must be a number or a string like \"48KiB\", not %T", v)
}

func loadInjectConfig(path string) (*injectConfig, error) {
	var c injectConfig
	md, err := toml.DecodeFile(path, &c)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return nil, fmt.Errorf("config %s: unknown setting %s", path, strings.Join(keys, ", "))
	}
	c.resolvePaths(filepath.Dir(path))
	return &c, nil
}

// resolvePaths makes relative paths relative to the config file's directory.
func (c *injectConfig) resolvePaths(dir string) {
	abs := func(p *string) {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
	for _, p := range []*string{&c.Key, &c.PassphraseFile, &c.Site, &c.Bundle, &c.Snippets, &c.URLs, &c.State} {
		abs(p)
	}
	for i, inc := range c.Include {
		path, seg, _ := strings.Cut(inc, "=")
		abs(&path)
		c.Include[i] = path
		if seg != "" {
			c.Include[i] += "=" + seg
		}
	}
}

// dumps returns the [dump] table as NAME=COMMAND strings, sorted.
func (c *injectConfig) dumps() []string {
	var out []string
	for name, cmd := range c.Dump {
		out = append(out, name+"="+cmd)
	}
	sort.Strings(out)
	return out
}

func (c *injectConfig) dumpTimeout() (time.Duration, error) {
	if c.DumpTimeout == "" {
		return 0, nil
	}
	return time.ParseDuration(c.DumpTimeout)
}
