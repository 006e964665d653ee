package injector

import (
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/codec"
)

// validate fills the defaults of zero values and checks the options,
// listing every problem as an *OptionError in an *OptionsError.
func (o *Options) validate() error {
	o.fillDefaults()
	var problems []error
	for _, check := range []func() []error{o.validateInputs, o.validateOutputs, o.validateKey, o.validateSizes, o.validateSiteURL, o.validateNames} {
		problems = append(problems, check()...)
	}
	if len(problems) > 0 {
		return &OptionsError{Problems: problems}
	}
	return nil
}

func (o *Options) validateInputs() []error {
	if len(o.Includes) == 0 && len(o.Dumps) == 0 {
		return []error{optionErrorf("Includes", "nothing to preserve: no include and no dump")}
	}
	return nil
}

// validateOutputs checks where the run writes and that every output has
// pages to plan for.
func (o *Options) validateOutputs() []error {
	var errs []error
	if o.SiteDir == "" && o.BundleDir == "" && o.SnippetsDir == "" {
		errs = append(errs, optionErrorf("SiteDir", "nowhere to write: no site, bundle or snippets directory"))
	}
	if o.StateDir == "" {
		errs = append(errs, optionErrorf("StateDir", "no state directory"))
	}
	pages := o.SiteDir != "" || len(o.URLs) > 0
	switch {
	case o.Carriers < 0 || o.Carriers > 0 && (o.BundleDir == "" || o.SiteDir != "" || o.SnippetsDir != "" || len(o.URLs) > 0):
		errs = append(errs, optionErrorf("Carriers", "planning for unknown pages needs a bundle directory and no site, snippets or page list"))
	case o.BundleDir != "" && !pages && o.Carriers == 0:
		errs = append(errs, optionErrorf("BundleDir", "a bundle needs the pages to plan the blocks for: the site directory or a list of page URLs"))
	}
	if o.SnippetsDir != "" && !pages {
		errs = append(errs, optionErrorf("SnippetsDir", "snippets need the pages to write them for: the site directory or a list of page URLs"))
	}
	return errs
}

func (o *Options) validateKey() []error {
	n := 0
	for _, set := range []bool{len(o.ServerKey) > 0 && !o.Public, len(o.Passphrase) > 0, o.Public} {
		if set {
			n++
		}
	}
	if n != 1 {
		return []error{optionErrorf("ServerKey", "choose exactly one of a server key, a passphrase or public (unencrypted) mode")}
	}
	return nil
}

func (o *Options) validateSizes() []error {
	var errs []error
	if o.MaxBlockBytes != 0 && (o.MaxBlockBytes < 1024 || o.MaxBlockBytes > 16<<20) {
		errs = append(errs, optionErrorf("MaxBlockBytes", "block size %d bytes is outside 1 KiB to 16 MiB", o.MaxBlockBytes))
	}
	if o.PageBudget < 4096 {
		errs = append(errs, optionErrorf("PageBudget", "page budget %d bytes is below 4 KiB", o.PageBudget))
	}
	if !(o.Target >= 0 && o.Target < 1) {
		errs = append(errs, optionErrorf("Target", "target %g is outside (0, 1)", o.Target))
	}
	for u, p := range o.Capture {
		if !(p >= 0 && p <= 1) {
			errs = append(errs, optionErrorf("Capture", "capture probability %g of %q is outside [0, 1]", p, u))
			break
		}
	}
	if o.Requests != nil {
		if err := o.Requests.validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if !(o.Redundancy > 0 && o.Redundancy <= 255) {
		errs = append(errs, optionErrorf("Redundancy", "redundancy %g is outside (0, 255]", o.Redundancy))
	}
	if a := o.Archived; a != nil && a.RestorePoint != "" {
		if _, err := manifest.ParseID(a.RestorePoint); err != nil {
			errs = append(errs, optionErrorf("Archived", "restore point %q is not a generation id", a.RestorePoint))
		}
	}
	if o.KeepMaxAge < 0 {
		errs = append(errs, optionErrorf("KeepMaxAge", "keep max age %v is negative", o.KeepMaxAge))
	}
	if o.KeepPrevious < 0 || o.KeepPrevious > 16 {
		errs = append(errs, optionErrorf("KeepPrevious", "%d previous generations to keep is outside 0 to 16", o.KeepPrevious))
	}
	if o.DumpTimeout < 0 {
		errs = append(errs, optionErrorf("DumpTimeout", "dump timeout %v is negative", o.DumpTimeout))
	}
	return errs
}

func (o *Options) validateSiteURL() []error {
	u, err := url.Parse(o.SiteURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
		return []error{optionErrorf("SiteURL", "site URL %q is not an absolute http(s) URL such as https://example.org/", o.SiteURL)}
	}
	return nil
}

// validateNames checks the names of includes and dumps: each is a
// segment name and the top-level name its files are restored under, so
// each must be valid and used once. In an all-or-nothing run the one
// segment holds them all side by side, under the same names.
func (o *Options) validateNames() []error {
	var errs []error
	used := map[string]string{} // name → what uses it
	add := func(name, what, field string) {
		if err := codec.CheckSegmentName(name); err != nil {
			errs = append(errs, optionErrorf(field, "%s: %v", what, err))
		}
		if prev, ok := used[name]; ok {
			errs = append(errs, optionErrorf(field, "%s and %s both use the name %q: each needs a name of its own", prev, what, name))
		}
		used[name] = what
	}
	for _, in := range o.Includes {
		add(in.segment(), "include "+in.Path, "Includes.Segment")
	}
	for _, d := range o.Dumps {
		if strings.TrimSpace(d.Command) == "" {
			errs = append(errs, optionErrorf("Dumps.Command", "dump %s: empty command", d.Name))
		}
		add(d.Name, "dump "+d.Name, "Dumps.Name")
		if _, err := compileVolatile(d.Volatile); err != nil {
			errs = append(errs, optionErrorf("Dumps.Volatile", "dump %s: %v", d.Name, err))
		}
	}
	return errs
}

// segment is the include's name: as given, else the base name of Path.
func (in Include) segment() string {
	if in.Segment != "" {
		return in.Segment
	}
	return filepath.Base(filepath.Clean(in.Path))
}

// fileName is the entry name of an included single file, which keeps its
// own name: its base name when that is the segment's name (the default),
// else SEGMENT/BASE, so /etc/wordpress/wp-config.php in segment config
// restores as config/wp-config.php.
func (in Include) fileName() string {
	base := filepath.Base(filepath.Clean(in.Path))
	if seg := in.segment(); seg != base {
		return seg + "/" + base
	}
	return base
}
