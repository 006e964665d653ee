package keys

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"
)

// File names written by [WriteNewPair].
const (
	OwnerFileName  = "owner.key"
	ServerFileName = "server.key"
)

// Warning describes a non-fatal problem found while loading a secret file,
// such as permissions that let other users read it. The empty Warning means
// there is nothing to report.
type Warning string

// WriteNewPair generates a new key pair (see [Generate]) stamped with now,
// and writes it to dir/owner.key and dir/server.key with mode 0600,
// creating dir (mode 0700) if missing. It refuses to overwrite: if either
// file exists it writes neither and returns an error wrapping
// [fs.ErrExist].
func WriteNewPair(dir string, classic bool, now time.Time) (ownerPath, serverPath string, err error) {
	ownerPath = filepath.Join(dir, OwnerFileName)
	serverPath = filepath.Join(dir, ServerFileName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("creating key directory: %w", err)
	}
	for _, p := range []string{ownerPath, serverPath} {
		if _, err := os.Lstat(p); err == nil {
			return "", "", fmt.Errorf("refusing to overwrite %s: %w", p, fs.ErrExist)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", "", err
		}
	}
	o, s, err := Generate(classic)
	if err != nil {
		return "", "", err
	}
	o.created = now.UTC().Truncate(time.Second)
	s.created = o.created
	if err := writeNewFile(ownerPath, o.Marshal()); err != nil {
		return "", "", err
	}
	if err := writeNewFile(serverPath, s.Marshal()); err != nil {
		os.Remove(ownerPath) // we just created it; do not leave half a pair
		return "", "", err
	}
	if err := syncDir(dir); err != nil {
		return "", "", err
	}
	return ownerPath, serverPath, nil
}

// writeNewFile creates path exclusively with mode 0600 and writes data
// durably. On failure it removes what it created.
func writeNewFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("refusing to overwrite %s: %w", path, err)
		}
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// syncDir makes the new directory entries durable. Windows cannot sync
// directories and does not need to.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}

// LoadOwner reads and parses an owner key file. The Warning is non-empty
// if other users can access the file.
func LoadOwner(path string) (*Owner, Warning, error) {
	data, warn, err := readSecretFile(path, MaxKeyFileSize)
	if err != nil {
		return nil, "", err
	}
	o, err := ParseOwner(data)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return o, warn, nil
}

// LoadServer reads and parses a server key file. The Warning is non-empty
// if other users can access the file.
func LoadServer(path string) (*Server, Warning, error) {
	data, warn, err := readSecretFile(path, MaxKeyFileSize)
	if err != nil {
		return nil, "", err
	}
	s, err := ParseServer(data)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return s, warn, nil
}

// readSecretFile reads at most limit bytes from path and checks its mode.
func readSecretFile(path string, limit int64) ([]byte, Warning, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, "", err
	}
	if !fi.Mode().IsRegular() {
		return nil, "", fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, "", fmt.Errorf("reading %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, "", fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return data, modeWarning(path, fi.Mode()), nil
}

// modeWarning returns a Warning if mode lets group or others access a file.
func modeWarning(path string, mode fs.FileMode) Warning {
	if runtime.GOOS == "windows" || mode.Perm()&0o077 == 0 {
		return ""
	}
	return Warning(fmt.Sprintf("%s is accessible by other users (mode %04o); run: chmod 600 %s",
		path, mode.Perm(), path))
}
