package caddymodule

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/internal/keys"
)

// TestDefaultName: the default name of a self-building handler tells
// sites and keys apart (two sites sharing Caddy's storage must never
// share lazarus/NAME/, or one serves the other's blocks), and is the same
// for the same configuration (restarts, other instances).
func TestDefaultName(t *testing.T) {
	f := newBuildFixture(t)
	name := func(edit func(*Build)) string {
		t.Helper()
		b := f.build
		b.Sources = slices.Clone(b.Sources)
		edit(&b)
		h := &Handler{Build: &b, storage: &certmagic.FileStorage{Path: f.storage}}
		if err := h.setup(); err != nil {
			t.Fatal(err)
		}
		if !validName(h.Name) {
			t.Fatalf("default name %q is not a valid name", h.Name)
		}
		return h.Name
	}
	same := func(*Build) {}
	base := name(same)
	otherKey := filepath.Join(t.TempDir(), "server.key")
	_, server, err := keys.Generate(true)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, otherKey, server.Marshal())
	pass := filepath.Join(t.TempDir(), "pass")
	writeFile(t, pass, []byte("correct horse battery staple\n"))
	passMode := func(b *Build) { b.Key, b.PassphraseFile = "", pass }
	tests := []struct {
		name string
		edit func(*Build)
		same bool
	}{
		// Expected: the same configuration gives the same name.
		{"same configuration", same, true},
		// Expected: another site (site_url) gets another name.
		{"other site_url", func(b *Build) { b.SiteURL = "https://other.example.org/" }, false},
		// Expected: another server key gets another name.
		{"other key file", func(b *Build) { b.Key = otherKey }, false},
		// Expected: passphrase mode is another identity.
		{"passphrase mode", passMode, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := name(tt.edit); (got == base) != tt.same {
				t.Fatalf("name %q, base %q: want same %v", got, base, tt.same)
			}
		})
	}
	t.Run("other key at the same path", func(t *testing.T) {
		// Expected: the name follows the key, not the file's path.
		saved := f.build.Key
		f.build.Key = filepath.Join(t.TempDir(), "server.key")
		writeFile(t, f.build.Key, server.Marshal())
		a := name(same)
		_, other, err := keys.Generate(true)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, f.build.Key, other.Marshal())
		b := name(same)
		f.build.Key = saved
		if a == b {
			t.Fatalf("two keys at one path share the name %q", a)
		}
	})
	t.Run("passphrase mode, other site_url", func(t *testing.T) {
		a := name(passMode)
		b := name(func(b *Build) { passMode(b); b.SiteURL = "https://other.example.org/" })
		if a == b || a != name(passMode) {
			t.Fatalf("names %q and %q", a, b)
		}
	})
}
