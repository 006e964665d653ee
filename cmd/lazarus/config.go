package main

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/lazarus-preserve/lazarus/injector"
)

// injectConfig is the --config file of inject: the same settings as the
// flags, with the flag names in snake_case, except the command-line-only
// flags (cliOnly). Relative paths are relative to the config file.
// Unknown keys and bad values are errors; settings the file leaves out
// keep the injector's defaults (see apply). docs/recipes/lazarus.toml
// lists every setting.
//
//	site_url = "https://example.org/"
//	key = "/etc/lazarus/server.key"
//	include = ["app", "/etc/myapp=config"]
//	exclude = ["*.log", "cache/"]
//	site = "public"
//	max_block_bytes = "48KiB"
//	[dump]
//	db = "mysqldump --single-transaction --skip-dump-date app"
//	[volatile]
//	db = ["^INSERT INTO `wp_options` VALUES \\(\\d+,'_transient_"]
type injectConfig struct {
	SiteURL        string              `toml:"site_url"`
	Key            string              `toml:"key"`
	PassphraseFile string              `toml:"passphrase_file"`
	Public         bool                `toml:"public"`
	Include        []string            `toml:"include"`
	Exclude        []string            `toml:"exclude"`
	Dump           map[string]string   `toml:"dump"`
	Volatile       map[string][]string `toml:"volatile"`
	DumpTimeout    string              `toml:"dump_timeout"`
	AllOrNothing   bool                `toml:"all_or_nothing"`
	MaxBlockBytes  tomlSize            `toml:"max_block_bytes"`
	PageBudget     tomlSize            `toml:"page_budget"`
	MaxPageBytes   tomlSize            `toml:"max_page_bytes"`
	Redundancy     any                 `toml:"redundancy"` // "auto", "max" or a ratio
	Target         any                 `toml:"target"`     // 0.999 or "99.9%"
	Status         string              `toml:"status"`
	KeepMaxAge     string              `toml:"keep_max_age"`
	KeepPrevious   *int                `toml:"keep_previous"`
	Site           string              `toml:"site"`
	Bundle         string              `toml:"bundle"`
	Snippets       string              `toml:"snippets"`
	URLs           string              `toml:"urls"`
	State          string              `toml:"state"`
	Notice         string              `toml:"notice"`
	Sitemap        bool                `toml:"sitemap"`
	Capture        captureConfig       `toml:"capture"` // lazarus capture's; inject plans for its requests (plannedRequests)
	// captureTable reports that the file has a [capture] table: the
	// deploy recipes then run lazarus capture after inject.
	captureTable bool
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

// cliOnly are the flags with no setting in the file, each about one run:
// a dry_run left in a file would make every scheduled run write nothing,
// an accept_shrink would let every future mistake through.
var cliOnly = map[string]string{"dry_run": "--dry-run", "accept_shrink": "--accept-shrink", "json": "--json", "config": "--config"}

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
			if flag, ok := cliOnly[keys[i]]; ok {
				return nil, fmt.Errorf("config %s: %s is not a setting: %s is for one run, given on the command line only", path, keys[i], flag)
			}
		}
		return nil, fmt.Errorf("config %s: unknown setting %s", path, strings.Join(keys, ", "))
	}
	if err := c.Capture.check(); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	c.captureTable = md.IsDefined("capture")
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
	for _, p := range []*string{&c.Key, &c.PassphraseFile, &c.Site, &c.Bundle, &c.Snippets, &c.URLs, &c.State, &c.Status, &c.Capture.AccessKeyFile} {
		abs(p)
	}
	for i := range c.Capture.History {
		abs(&c.Capture.History[i])
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

// volatiles returns the [volatile] table as NAME=REGEXP strings, sorted
// by name, each name's patterns in order.
func (c *injectConfig) volatiles() []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(c.Volatile)) {
		for _, re := range c.Volatile[name] {
			out = append(out, name+"="+re)
		}
	}
	return out
}

// apply sets the options the file gives, leaving the others as they are
// (the injector's defaults). A bad value is an error, never ignored.
func (c *injectConfig) apply(o *injector.Options) error {
	if c.DumpTimeout != "" {
		d, err := time.ParseDuration(c.DumpTimeout)
		if err != nil {
			return fmt.Errorf("dump_timeout %q: want a duration such as 10m", c.DumpTimeout)
		}
		o.DumpTimeout = d
	}
	for _, s := range []struct {
		v   tomlSize
		dst *int
	}{{c.MaxBlockBytes, &o.MaxBlockBytes}, {c.PageBudget, &o.PageBudget}, {c.MaxPageBytes, &o.MaxPageBytes}} {
		if s.v.set {
			*s.dst = s.v.n
		}
	}
	if c.Redundancy != nil {
		if err := o.SetRedundancy(strings.TrimSpace(fmt.Sprint(c.Redundancy))); err != nil {
			return err
		}
	}
	if c.Target != nil {
		t, err := parseTarget(fmt.Sprint(c.Target))
		if err != nil {
			return err
		}
		if c.Redundancy != nil && fixedRatio(strings.TrimSpace(fmt.Sprint(c.Redundancy))) {
			return fmt.Errorf("target plans by recoverability, redundancy %v fixes the parity: give one of them", c.Redundancy)
		}
		o.Target = t
	}
	if c.KeepMaxAge != "" {
		d, err := parseDays(c.KeepMaxAge)
		if err != nil || d < 0 {
			return fmt.Errorf("keep_max_age %q: want a duration such as 90d or 2160h", c.KeepMaxAge)
		}
		o.KeepMaxAge = d
	}
	if c.KeepPrevious != nil {
		o.KeepPrevious = *c.KeepPrevious
	}
	o.SiteURL, o.Public, o.AllOrNothing = c.SiteURL, c.Public, c.AllOrNothing
	o.SiteDir, o.BundleDir, o.SnippetsDir, o.Notice, o.Sitemap = c.Site, c.Bundle, c.Snippets, c.Notice, c.Sitemap
	return nil
}
