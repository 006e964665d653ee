package keys

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func skipOnWindows(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix file modes")
	}
}

func TestWriteNewPair(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 999, time.FixedZone("X", 3600))
	for _, v := range goldenVariants {
		t.Run(v.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "a", "keys")
			ownerPath, serverPath, err := WriteNewPair(dir, v.classic, now)
			if err != nil {
				t.Fatal(err)
			}
			if ownerPath != filepath.Join(dir, "owner.key") || serverPath != filepath.Join(dir, "server.key") {
				t.Errorf("paths %s, %s", ownerPath, serverPath)
			}
			o, warn, err := LoadOwner(ownerPath)
			if err != nil || warn != "" {
				t.Fatalf("LoadOwner: %v (warning %q)", err, warn)
			}
			s, warn, err := LoadServer(serverPath)
			if err != nil || warn != "" {
				t.Fatalf("LoadServer: %v (warning %q)", err, warn)
			}
			if o.Cipher() != v.cipher || s.Cipher() != v.cipher {
				t.Errorf("ciphers %v, %v; want %v", o.Cipher(), s.Cipher(), v.cipher)
			}
			if !bytes.Equal(o.Server().Marshal(), s.Marshal()) {
				t.Errorf("server.key does not match owner.key")
			}
			want := time.Date(2030, 1, 2, 2, 4, 5, 0, time.UTC)
			if !o.Created().Equal(want) || o.Created().Location() != time.UTC {
				t.Errorf("created %v, want %v", o.Created(), want)
			}
		})
	}
}

func TestWriteNewPairModes(t *testing.T) {
	skipOnWindows(t)
	dir := filepath.Join(t.TempDir(), "keys")
	ownerPath, serverPath, err := WriteNewPair(dir, true, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]fs.FileMode{dir: 0o700 | fs.ModeDir, ownerPath: 0o600, serverPath: 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		// umask can only clear bits, so anything beyond want is a bug.
		if fi.Mode()&^want != 0 {
			t.Errorf("%s: mode %v, want at most %v", path, fi.Mode(), want)
		}
	}
}

func TestWriteNewPairRefusesOverwrite(t *testing.T) {
	for _, existing := range []string{OwnerFileName, ServerFileName} {
		t.Run(existing, func(t *testing.T) {
			dir := t.TempDir()
			old := []byte("precious\n")
			if err := os.WriteFile(filepath.Join(dir, existing), old, 0o600); err != nil {
				t.Fatal(err)
			}
			_, _, err := WriteNewPair(dir, false, time.Now())
			if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), "refusing to overwrite") {
				t.Errorf("WriteNewPair = %v, want a refusal wrapping fs.ErrExist", err)
			}
			// Neither file was written; the existing one is untouched.
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("directory holds %d entries, want 1", len(entries))
			}
			if got, _ := os.ReadFile(filepath.Join(dir, existing)); !bytes.Equal(got, old) {
				t.Errorf("existing file changed to %q", got)
			}
		})
	}
}

func TestLoadWarnsOnOpenMode(t *testing.T) {
	skipOnWindows(t)
	dir := t.TempDir()
	ownerPath, serverPath, err := WriteNewPair(dir, true, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{ownerPath, serverPath} {
		if err := os.Chmod(p, 0o640); err != nil {
			t.Fatal(err)
		}
	}
	if _, warn, err := LoadOwner(ownerPath); err != nil || !strings.Contains(string(warn), "chmod 600") {
		t.Errorf("LoadOwner: warning %q, error %v; want a chmod warning", warn, err)
	}
	if _, warn, err := LoadServer(serverPath); err != nil || !strings.Contains(string(warn), "mode 0640") {
		t.Errorf("LoadServer: warning %q, error %v; want a mode warning", warn, err)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	ownerPath, serverPath, err := WriteNewPair(dir, true, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	// Swapped files: the error names the path and what was expected.
	if _, _, err := LoadOwner(serverPath); err == nil || !strings.Contains(err.Error(), serverPath) ||
		!strings.Contains(err.Error(), "recovery needs the owner key file") {
		t.Errorf("LoadOwner(server.key) = %v", err)
	}
	if _, _, err := LoadServer(ownerPath); err == nil || !strings.Contains(err.Error(), "must stay offline") {
		t.Errorf("LoadServer(owner.key) = %v", err)
	}
	// Missing file: fs.ErrNotExist.
	if _, _, err := LoadOwner(filepath.Join(dir, "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadOwner(missing) = %v, want fs.ErrNotExist", err)
	}
	// A directory: not a regular file.
	if _, _, err := LoadServer(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("LoadServer(dir) = %v", err)
	}
}
