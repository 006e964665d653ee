package sitetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/keys"
)

// Site is a site with keys, into which a test injects generations: its
// pages under Dir/site (Linked writes a small one), its server side under
// Dir/src, inject's state under Dir/state. The keys are made fresh for
// each test and protect nothing.
type Site struct {
	Dir    string
	Owner  *keys.Owner
	Server *keys.Server
}

// NewSite makes a Site in a temporary directory with fresh keys and no
// files yet.
func NewSite(tb testing.TB) *Site {
	tb.Helper()
	owner, server, err := keys.Generate(true)
	if err != nil {
		tb.Fatal(err)
	}
	return &Site{Dir: tb.TempDir(), Owner: owner, Server: server}
}

// Path returns name (slash-separated) under the site's directory.
func (s *Site) Path(name string) string { return filepath.Join(s.Dir, filepath.FromSlash(name)) }

// Pages returns the directory of the site's pages, Dir/site.
func (s *Site) Pages() string { return s.Path("site") }

// Include returns includes for the named directories under Dir/src,
// each restored under its name.
func (s *Site) Include(names ...string) []injector.Include {
	var out []injector.Include
	for _, n := range names {
		out = append(out, injector.Include{Path: s.Path("src/" + n)})
	}
	return out
}

// Options returns inject options for the site published at siteURL in
// the layout most tests were written for: every page filled
// (Target 0, Fill) with blocks of at most 1 KiB. Includes and Now are
// the caller's.
func (s *Site) Options(siteURL string) injector.Options {
	o := s.DefaultOptions(siteURL)
	o.Target, o.Fill, o.MaxBlockBytes = 0, true, 1024
	return o
}

// DefaultOptions returns inject's own defaults (its redundancy target,
// light pages, blocks of the default size) with only the site's server
// key, siteURL, pages and state directory set. Includes and Now are the
// caller's.
func (s *Site) DefaultOptions(siteURL string) injector.Options {
	o := injector.DefaultOptions()
	o.ServerKey, o.SiteURL = s.Server.Marshal(), siteURL
	o.SiteDir, o.StateDir = s.Pages(), s.Path("state")
	return o
}

// KeyFiles writes the site's keys as key files, Dir/keys/owner.key and
// Dir/keys/server.key (mode 0600), for commands that read them, and
// returns their paths.
func (s *Site) KeyFiles(tb testing.TB) (owner, server string) {
	tb.Helper()
	owner, server = s.Path("keys/"+keys.OwnerFileName), s.Path("keys/"+keys.ServerFileName)
	if err := os.MkdirAll(filepath.Dir(owner), 0o700); err != nil {
		tb.Fatal(err)
	}
	for p, k := range map[string][]byte{owner: s.Owner.Marshal(), server: s.Server.Marshal()} {
		if err := os.WriteFile(p, k, 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	return owner, server
}

// Inject runs inject with o, failing the test if it fails, and returns
// its report.
func Inject(tb testing.TB, o injector.Options) *injector.Report {
	tb.Helper()
	res, err := injector.Run(context.Background(), o)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}
