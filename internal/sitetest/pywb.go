package sitetest

import (
	"slices"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
)

// PywbOf serves an injected site's pages from a pywb collection: every
// page captured an hour after injection, and revisited (the same
// payload, a revisit record) a day later.
func PywbOf(t testing.TB, site string, p archivetest.PywbConfig) *archivetest.Server {
	t.Helper()
	at := time.Unix(1795258800, 0)
	caps := CapturesOf(t, site, at)
	for _, c := range slices.Clone(caps) {
		c.Time, c.Revisit = at.Add(24*time.Hour), true
		caps = append(caps, c)
	}
	srv, err := archivetest.New(caps, archivetest.Config{Pywb: &p})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}
