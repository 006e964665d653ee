package sitetest

import (
	"crypto/rand"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
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
	s, _ := InjectedSite(tb)
	return s.Pages(), s.Owner.Marshal()
}

// InjectedSite is Injected returning the Site and inject's report.
func InjectedSite(tb testing.TB) (*Site, *injector.Report) {
	tb.Helper()
	s := NewSite(tb)
	Linked(tb, s.Dir, 11)
	ServerSide(tb, s.Dir, 20000)
	o := s.Options("https://example.org/")
	o.Includes = s.Include("app", "etc")
	o.Now = func() time.Time { return InjectedAt }
	return s, Inject(tb, o)
}

// ServerSide writes the server side most fixtures carry under dir/src:
// app/index.php, appBytes of random bytes (incompressible, so the
// segment needs many blocks), and etc/app.conf, a small config file.
func ServerSide(tb testing.TB, dir string, appBytes int) {
	tb.Helper()
	noise := make([]byte, appBytes)
	rand.Read(noise)
	WriteFile(tb, dir, "src/app/index.php", noise)
	WriteFile(tb, dir, "src/etc/app.conf", []byte("secret = 1\n"))
}
