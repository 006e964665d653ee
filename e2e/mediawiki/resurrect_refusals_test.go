package mediawiki

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestResurrectScriptRefusesBeforeChangingAnything: the resurrection
// script refuses, with exit 1 and a reason, a wiki it cannot bring back
// safely — not MySQL/MariaDB, an empty database user (it would create an
// anonymous one), a database on another host, a DOCROOT that holds a
// wiki already — before it runs the database client at all.
func TestResurrectScriptRefusesBeforeChangingAnything(t *testing.T) {
	if _, err := exec.LookPath("php"); err != nil {
		t.Skip("php is not installed")
	}
	core := t.TempDir()
	if err := os.MkdirAll(filepath.Join(core, "includes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(core, "includes", "WebStart.php"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The client leaves a mark if it ever runs.
	mark := filepath.Join(t.TempDir(), "client-ran")
	client := filepath.Join(t.TempDir(), "client")
	if err := os.WriteFile(client, []byte("#!/bin/sh\ntouch "+mark+"\ncat >/dev/null\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings := func(dbType, user, server string) string {
		return "<?php\n$wgDBtype = \"" + dbType + "\";\n$wgDBserver = \"" + server + "\";\n$wgDBname = \"my_wiki\";\n$wgDBuser = \"" + user + "\";\n$wgDBpassword = \"pw\";\n"
	}
	fullDocroot := t.TempDir()
	if err := os.MkdirAll(filepath.Join(fullDocroot, "images"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, settings, docroot, want string
	}{
		{"sqlite", settings("sqlite", "", ""), "", `$wgDBtype is "sqlite"`},
		{"empty user", settings("mysql", "", "localhost"), "", "refusing to create an anonymous database user"},
		{"remote database", settings("mysql", "wiki", "db.internal:3306"), "", "the database is on another host"},
		{"wiki already there", settings("mysql", "wiki", "localhost"), fullDocroot, "holds a wiki already"},
	} {
		restored := t.TempDir()
		if err := os.MkdirAll(filepath.Join(restored, "config"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(restored, "images"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(restored, "config", "LocalSettings.php"), []byte(c.settings), 0o640); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(restored, "db"), []byte("-- dump\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		docroot := c.docroot
		if docroot == "" {
			docroot = filepath.Join(t.TempDir(), "wiki")
		}
		cmd := exec.Command("sh", "../../docs/recipes/resurrect-mediawiki.sh", restored, docroot)
		cmd.Env = append(os.Environ(), "MYSQL="+client, "MW_CORE="+core)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !(err != nil && errors.As(err, &ee) && ee.ExitCode() == 1) || !strings.Contains(string(out), c.want) {
			t.Errorf("%s: %v, want exit 1 saying %q:\n%s", c.name, err, c.want, out)
		}
		if _, err := os.Stat(mark); err == nil {
			t.Fatalf("%s: the database client ran", c.name)
		}
	}
}
