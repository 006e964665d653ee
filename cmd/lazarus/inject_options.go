package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/genstate"
	"github.com/lazarus-preserve/lazarus/internal/keys"
)

// options completes the parsed options: includes, dumps, the secrets and
// the page list read from their files, the clock and the state directory.
func (c *injectCmd) options() (injector.Options, error) {
	o := c.opts
	o.Excludes = c.exclude.vals
	for _, inc := range c.include.vals {
		path, seg, _ := strings.Cut(inc, "=")
		o.Includes = append(o.Includes, injector.Include{Path: path, Segment: seg})
	}
	for _, d := range c.dump.vals {
		name, cmd, ok := strings.Cut(d, "=")
		if !ok || name == "" {
			return o, fmt.Errorf("--dump %q: want NAME=COMMAND", d)
		}
		o.Dumps = append(o.Dumps, injector.Dump{Name: name, Command: cmd})
	}
	if err := c.addVolatile(&o); err != nil {
		return o, err
	}
	if err := c.loadSecrets(&o); err != nil {
		return o, err
	}
	if o.Sitemap && o.SiteDir == "" {
		return o, fmt.Errorf("--sitemap writes into the static site: give --site DIR (site in the config)")
	}
	switch {
	case c.target > 0 && fixedRatio(c.redundancyWord):
		return o, fmt.Errorf("--target plans by recoverability, --redundancy %s fixes the parity: give one of them", c.redundancyWord)
	case c.target > 0:
		o.Target = c.target
	}
	if c.cfg.Status != "" {
		if err := readStatus(c.cfg.Status, &o, c.stderr); err != nil {
			return o, err
		}
	}
	if c.cfg.URLs != "" {
		urls, err := readURLList(c.cfg.URLs)
		if err != nil {
			return o, err
		}
		o.URLs = urls
	}
	if now, ok, err := sourceDateEpoch(); err != nil {
		return o, err
	} else if ok {
		o.Now = func() time.Time { return now }
	}
	o.StateDir = c.cfg.State
	if o.StateDir == "" {
		dir, err := defaultStateDir(o)
		if err != nil {
			return o, err
		}
		o.StateDir = dir
	}
	return o, nil
}

// fromArchiveState reads the archive state lazarus capture records in
// the state directory. Once a capture run has audited the archives,
// earlier generations stay on the pages down to the newest one the
// archives were found to hold (make-before-break by confirmation),
// instead of --keep-previous of them; a --status report, when given,
// says it instead (o.Archived is set already). A target plan counts on
// the capture requests the config's [capture] table makes (see
// plannedRequests), measured on the requests recorded.
func (c *injectCmd) fromArchiveState(o *injector.Options) error {
	rec, err := genstate.Read(o.StateDir)
	if err != nil {
		return err // it names the file
	}
	if o.Archived == nil && rec.Confirming() {
		o.Archived = &injector.Archived{RestorePoint: rec.RestorePoint}
	}
	if o.Target > 0 {
		o.Requests, c.requestsNote = plannedRequests(&c.cfg, rec, o.Now())
		if o.Requests != nil && c.target == 0 && c.cfg.Target == nil {
			o.Target = injector.DefaultRequestsTarget
		}
	}
	return nil
}

// loadSecrets reads the server key or the passphrase with internal/keys'
// loaders (size limit, a warning when others can read the file).
func (c *injectCmd) loadSecrets(o *injector.Options) error {
	if c.cfg.Key != "" {
		srv, warn, err := keys.LoadServer(c.cfg.Key)
		if err != nil {
			return fmt.Errorf("--key: %w", err)
		}
		warnf(c.stderr, warn)
		o.ServerKey = srv.Marshal()
	}
	if c.cfg.PassphraseFile != "" {
		pass, err := readPassphrase(c.cfg.PassphraseFile, c.stderr)
		if err != nil {
			return err
		}
		o.Passphrase = pass
	}
	return nil
}

// readURLList reads one page path per line; blank lines and # comments
// are ignored.
func readURLList(path string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--urls: %w", err)
	}
	var out []string
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !strings.HasPrefix(line, "/") {
			return nil, fmt.Errorf("--urls %s: %q is not a path starting with /", path, line)
		}
		out = append(out, line)
	}
	return out, nil
}

// defaultStateDir is $XDG_STATE_HOME/lazarus/<hash of the outputs and
// site URL>, so each site has its own state outside the served tree.
// XDG_STATE_HOME defaults to $HOME/.local/state; with neither (a system
// service) it is an error, never a directory relative to where the run
// happens to start.
func defaultStateDir(o injector.Options) (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(base) { // relative: invalid, to be ignored (XDG Base Directory spec)
		home := os.Getenv("HOME")
		if !filepath.IsAbs(home) {
			return "", errors.New("no state directory: give --state DIR (state in the config file); " +
				"the default, under $XDG_STATE_HOME or $HOME/.local/state, needs one of them set to an absolute path")
		}
		base = filepath.Join(home, ".local", "state")
	}
	h := sha256.New()
	for _, p := range []string{o.SiteDir, o.BundleDir, o.SnippetsDir} {
		abs, _ := filepath.Abs(p)
		if p == "" {
			abs = ""
		}
		fmt.Fprintf(h, "%s\x00", abs)
	}
	fmt.Fprintf(h, "%s", o.SiteURL)
	return filepath.Join(base, "lazarus", hex.EncodeToString(h.Sum(nil))[:16]), nil
}

// sourceDateEpoch honours SOURCE_DATE_EPOCH (reproducible-builds.org): a
// fixed "now" for generation times, page mtimes, sitemap lastmod and the
// notice, for reproducible runs and tests.
func sourceDateEpoch() (time.Time, bool, error) {
	v := os.Getenv("SOURCE_DATE_EPOCH")
	if v == "" {
		return time.Time{}, false, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("SOURCE_DATE_EPOCH=%q is not a Unix time", v)
	}
	return time.Unix(n, 0).UTC(), true, nil
}

// readPassphrase reads a passphrase file (one trailing newline removed),
// warning on stderr if other users can read it.
func readPassphrase(path string, stderr io.Writer) ([]byte, error) {
	pass, warn, err := keys.ReadPassphraseFile(path)
	if err != nil {
		return nil, fmt.Errorf("--passphrase-file: %w", err)
	}
	warnf(stderr, warn)
	return pass, nil
}

// warnf prints a loader's warning, if any.
func warnf(w io.Writer, warn keys.Warning) {
	if warn != "" {
		fmt.Fprintf(w, "lazarus: warning: %s\n", warn)
	}
}

// addVolatile gives each --volatile NAME=REGEXP to dump NAME.
func (c *injectCmd) addVolatile(o *injector.Options) error {
	for _, v := range c.volatile.vals {
		name, re, ok := strings.Cut(v, "=")
		i := slices.IndexFunc(o.Dumps, func(d injector.Dump) bool { return d.Name == name })
		switch {
		case !ok || name == "" || re == "":
			return fmt.Errorf("--volatile %q: want NAME=REGEXP", v)
		case i < 0:
			return fmt.Errorf("--volatile %q: no --dump is named %q", v, name)
		}
		o.Dumps[i].Volatile = append(o.Dumps[i].Volatile, re)
	}
	return nil
}
