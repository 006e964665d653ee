package caddymodule

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/caddyserver/certmagic"
)

// mirrorIndexKey names, under a mirrored prefix, the list of its files
// with their SHA-256: {"segments/…": "hex", …}.
const mirrorIndexKey = "INDEX"

// maxMirrorIndexBytes bounds the index read from storage.
const maxMirrorIndexBytes = 16 << 20

// mirrorIndex maps slash paths relative to a mirrored directory to the hex
// SHA-256 of their contents.
type mirrorIndex map[string]string

// pull makes dir hold the files mirrored under prefix in storage (the
// authority; dir is a cache): files whose hash differs are fetched and
// checked, files not in the index removed. skip names local files pull
// leaves alone (locks, temporaries). It returns the index.
func pull(ctx context.Context, st certmagic.Storage, prefix, dir string, skip func(string) bool) (mirrorIndex, error) {
	idx := mirrorIndex{}
	v, err := loadLimited(ctx, st, prefix+mirrorIndexKey, maxMirrorIndexBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	case len(v) > maxMirrorIndexBytes:
		return nil, fmt.Errorf("%s%s: %d bytes", prefix, mirrorIndexKey, len(v))
	default:
		if err := json.Unmarshal(v, &idx); err != nil {
			return nil, fmt.Errorf("%s%s: %w", prefix, mirrorIndexKey, err)
		}
	}
	local, err := hashTree(dir, skip)
	if err != nil {
		return nil, err
	}
	for rel, sum := range idx {
		if !fs.ValidPath(rel) {
			return nil, fmt.Errorf("%s%s: bad path %q", prefix, mirrorIndexKey, rel)
		}
		if local[rel] != sum {
			if err := fetchFile(ctx, st, prefix+rel, sum, filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
				return nil, err
			}
		}
	}
	for rel := range local {
		if _, ok := idx[rel]; !ok {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
				return nil, err
			}
		}
	}
	return idx, nil
}

// fetchFile copies one stored value to a local file, checking its hash; the
// file appears complete or not at all.
func fetchFile(ctx context.Context, st certmagic.Storage, key, sum, dst string) error {
	v, err := st.Load(ctx, key)
	if err != nil {
		return err
	}
	if got := sha256.Sum256(v); hex.EncodeToString(got[:]) != sum {
		return fmt.Errorf("%s: content does not match its index entry", key)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	tmp := dst + ".pull-tmp"
	if err := os.WriteFile(tmp, v, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

// push stores the files of dir under prefix whose hash differs from old,
// then the new index, then deletes what is no longer there. A reader
// using the index never sees it name a file not yet stored. When nothing
// differs from old it writes nothing, not even the index: what it pulled
// may be stale by now (another instance's build), and writing the old
// index back over a newer one would name files that instance replaced.
func push(ctx context.Context, st certmagic.Storage, prefix, dir string, old mirrorIndex, skip func(string) bool) error {
	idx, err := storeTree(ctx, st, prefix, dir, old, skip)
	if err != nil {
		return err
	}
	if maps.Equal(idx, old) {
		return nil
	}
	v, err := json.Marshal(idx)
	if err != nil {
		return err
	}
	if err := st.Store(ctx, prefix+mirrorIndexKey, v); err != nil {
		return err
	}
	for rel := range old {
		if _, ok := idx[rel]; !ok {
			if err := st.Delete(ctx, prefix+rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// storeTree stores every file of dir (except skipped ones) whose hash
// differs from old under prefix and returns the hashes of all of them.
// Each file is read once.
func storeTree(ctx context.Context, st certmagic.Storage, prefix, dir string, old mirrorIndex, skip func(string) bool) (mirrorIndex, error) {
	return walkTree(dir, skip, func(rel, sum string, v []byte) error {
		if old[rel] == sum {
			return nil
		}
		return st.Store(ctx, prefix+rel, v)
	})
}

// hashTree returns the SHA-256 of every regular file under dir (none if dir
// does not exist), by slash path, leaving out those skip names.
func hashTree(dir string, skip func(string) bool) (mirrorIndex, error) {
	return walkTree(dir, skip, nil)
}

// walkTree reads every regular file under dir except skipped ones and
// pull's temporaries, passes each with its hex SHA-256 to fn (if not nil)
// and returns the hashes by slash path. A missing dir has no files.
func walkTree(dir string, skip func(string) bool, fn func(rel, sum string, v []byte) error) (mirrorIndex, error) {
	out := mirrorIndex{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == dir {
			return filepath.SkipDir
		}
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if skip != nil && skip(rel) || strings.HasSuffix(rel, ".pull-tmp") {
			return nil
		}
		v, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(v)
		out[rel] = hex.EncodeToString(sum[:])
		if fn != nil {
			return fn(rel, out[rel], v)
		}
		return nil
	})
	return out, err
}

// skipStateFiles leaves out the injector's lock and temporary files.
func skipStateFiles(rel string) bool {
	top, _, _ := strings.Cut(rel, "/")
	return top == "lock" || strings.HasPrefix(top, "tmp-") || strings.HasPrefix(path.Base(rel), ".lazarus-tmp-")
}
