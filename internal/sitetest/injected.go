package sitetest

import (
	"context"
	"crypto/rand"
	"path/filepath"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/keys"
)

// InjectedAt is when Injected makes its generation, and CapturedAt an
// hour later, when tests have archives capture its pages.
var (
	InjectedAt = time.Unix(1795255200, 0)
	CapturedAt = InjectedAt.Add(time.Hour)
)

// Injected makes the module's common fixture, a site with keys and a
// generation: a 12-page linked site (Linked) carrying two segments, "app"
// (20,000 random bytes, so it needs many blocks of 1 KiB) and "etc" (a
// small config file), injected for https://example.org/ at InjectedAt,
// every page filled. It returns the site's directory and the owner key;
// the server files are in the directory beside it, under src/.
func Injected(tb testing.TB) (site string, owner []byte) {
	tb.Helper()
	dir := tb.TempDir()
	Linked(tb, dir, 11)
	noise := make([]byte, 20000)
	rand.Read(noise)
	WriteFile(tb, dir, "src/app/index.php", noise)
	WriteFile(tb, dir, "src/etc/app.conf", []byte("secret = 1\n"))
	o, k := InjectOptions(tb, dir, "https://example.org/")
	o.Includes = []injector.Include{{Path: filepath.Join(dir, "src/app")}, {Path: filepath.Join(dir, "src/etc")}}
	o.Now = func() time.Time { return InjectedAt }
	if _, err := injector.Run(context.Background(), o); err != nil {
		tb.Fatal(err)
	}
	return filepath.Join(dir, "site"), k.Marshal()
}

// InjectOptions returns inject options for the site under dir/site with
// fresh keys (returned as the owner key, whose server half the options
// hold), state in dir/state, blocks of at most 1 KiB and every page
// filled: the layout most tests were written for. Includes are the
// caller's.
func InjectOptions(tb testing.TB, dir, siteURL string) (injector.Options, *keys.Owner) {
	tb.Helper()
	owner, server, err := keys.Generate(true)
	if err != nil {
		tb.Fatal(err)
	}
	o := injector.DefaultOptions()
	o.Target, o.Fill = 0, true
	o.ServerKey, o.SiteURL, o.MaxBlockBytes = server.Marshal(), siteURL, 1024
	o.SiteDir, o.StateDir = filepath.Join(dir, "site"), filepath.Join(dir, "state")
	return o, owner
}
