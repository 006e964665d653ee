package sitetest

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/verify"
)

// Live is an injected static site served on loopback.
type Live struct {
	Site, URL     string // the site directory and its URL, ending in "/"
	Owner, Server []byte // the key files
}

// ServedInjected makes the 12-page site of Injected, injected for the URL
// it is served at, and serves it with http.FileServer wrapped in wrap (if
// not nil). The site's files may be changed after this returns: every
// request reads them afresh.
func ServedInjected(tb testing.TB, wrap func(dir string, h http.Handler) http.Handler) Live {
	tb.Helper()
	return Serve(tb, 11, 20000, 1024, wrap)
}

// Serve serves a root page linking pages others, carrying an
// incompressible file of size bytes and a small one (ServerSide), in
// blocks of blockBytes.
func Serve(tb testing.TB, pages, size, blockBytes int, wrap func(dir string, h http.Handler) http.Handler) Live {
	tb.Helper()
	s := NewSite(tb)
	Linked(tb, s.Dir, pages)
	ServerSide(tb, s.Dir, size)
	var h http.Handler = http.FileServer(http.Dir(s.Pages()))
	if wrap != nil {
		h = wrap(s.Pages(), h)
	}
	srv := httptest.NewUnstartedServer(h)
	u := "http://" + srv.Listener.Addr().String() + "/"
	o := s.Options(u)
	o.MaxBlockBytes = blockBytes
	o.Includes = s.Include("app", "etc")
	Inject(tb, o)
	srv.Start()
	tb.Cleanup(srv.Close)
	return Live{Site: s.Pages(), URL: u, Owner: s.Owner.Marshal(), Server: s.Server.Marshal()}
}

// VerifyOptions are the options of a test verify of the site: verify's
// own client, fast on loopback, with key (the owner key if owner, else
// the server key).
func (s Live) VerifyOptions(key []byte, owner bool) verify.Options {
	o := verify.Options{SiteURL: s.URL, Rate: 600000}
	if owner {
		o.OwnerKey = key
	} else {
		o.ServerKey = key
	}
	return o
}
