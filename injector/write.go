package injector

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/rootfile"
	"golang.org/x/sys/unix"
)

// tmpPrefix names the temporary files inject writes next to their targets.
const tmpPrefix = ".lazarus-tmp-"

// batch replaces many files crash-safely: every new version is written to
// a temporary file beside its target, one syncfs makes them all durable,
// then each is renamed over its target and each directory is synced once,
// so the renames are durable too. Readers and crashes see each file
// either old or new, never half-written; one sync for all the files
// instead of one per file keeps large sites fast.
type batch struct {
	pending []pendingFile
}

// pendingFile is a temporary file waiting to replace path.
type pendingFile struct{ tmp, path string }

// renameWorkers is how many directories commit renames files in at once.
const renameWorkers = 4

// add writes the new version of path to a temporary file (see stageFile).
func (b *batch) add(path string, data []byte, mode os.FileMode, mtime *time.Time) error {
	p, err := stageFile(path, data, mode, mtime)
	if err != nil {
		return err
	}
	b.pending = append(b.pending, p)
	return nil
}

// stageFile writes the new version of path to a temporary file beside it.
// mode is used for new files; an existing file keeps its mode. mtime, if
// not nil, is set. On error it leaves no temporary file behind.
func stageFile(path string, data []byte, mode os.FileMode, mtime *time.Time) (pendingFile, error) {
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return pendingFile{}, err
	}
	return writeTemp(path, data, mode, mtime)
}

// writeTemp writes data to a new temporary file beside path, with mode
// and, if not nil, mtime, both set on the open file, never by name. The
// file is created with its mode (a chmod follows only if the umask took
// bits away): every inode update costs a journal entry, and waits for the
// file system's journal when it is busy. On error it leaves no temporary
// file behind.
func writeTemp(path string, data []byte, mode os.FileMode, mtime *time.Time) (pendingFile, error) {
	f, err := createTemp(filepath.Dir(path), mode)
	if err != nil {
		return pendingFile{}, err
	}
	_, err = f.Write(data)
	if err == nil {
		err = fixMode(f, mode)
	}
	if err == nil && mtime != nil {
		err = rootfile.SetTimes(f, *mtime, *mtime) // on the file: a name may have been swapped for a link
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return pendingFile{}, err
	}
	return pendingFile{f.Name(), path}, nil
}

// createTemp creates a new file named tmpPrefix and a random suffix in dir,
// with permissions mode (less the umask).
func createTemp(dir string, mode os.FileMode) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, tmpPrefix+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if !errors.Is(err, os.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("creating a temporary file in %s: too many names taken", dir)
}

// fixMode sets f's permissions to mode if the umask took bits away.
func fixMode(f *os.File, mode os.FileMode) error {
	info, err := f.Stat()
	if err != nil || info.Mode().Perm() == mode.Perm() {
		return err
	}
	return f.Chmod(mode)
}

// readPageFile reads a file without updating its access time where the
// kernel allows it (the file's owner, or root): one journaled inode
// update less per page. It returns the file's bytes and what it is.
func readPageFile(path string) ([]byte, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOATIME, 0)
	if errors.Is(err, unix.EPERM) {
		f, err = os.Open(path)
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	data := make([]byte, 0, info.Size()+512)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, info, nil
		}
		if err != nil {
			return nil, nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// commit makes the temporary files durable, renames them into place and
// syncs their directories. The directories are done in parallel, each
// one's files in order. On error, the files not renamed yet are removed.
func (b *batch) commit() error {
	if len(b.pending) == 0 {
		return nil
	}
	byDir := map[string][]int{}
	var dirs []string
	for i, p := range b.pending {
		d := filepath.Dir(p.path)
		if byDir[d] == nil {
			dirs = append(dirs, d)
		}
		byDir[d] = append(byDir[d], i)
	}
	if err := syncFileSystems(dirs); err != nil {
		b.abort()
		return err
	}
	renamed := make([]bool, len(b.pending))
	errs := make([]error, len(dirs))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(renameWorkers, len(dirs)) {
		wg.Go(func() {
			for j := range jobs {
				errs[j] = b.renameInto(dirs[j], byDir[dirs[j]], renamed)
			}
		})
	}
	for j := range dirs {
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	left := b.pending[:0]
	for i, p := range b.pending {
		if !renamed[i] {
			left = append(left, p)
		}
	}
	b.pending = left
	if err := errors.Join(errs...); err != nil {
		b.abort()
		return err
	}
	return nil
}

// renameInto renames the pending files idx, all in dir, into place, marks
// them in renamed, then syncs dir.
func (b *batch) renameInto(dir string, idx []int, renamed []bool) error {
	for _, i := range idx {
		if err := os.Rename(b.pending[i].tmp, b.pending[i].path); err != nil {
			return err
		}
		renamed[i] = true
	}
	return syncDir(dir)
}

// abort removes the temporary files not yet renamed.
func (b *batch) abort() {
	for _, p := range b.pending {
		os.Remove(p.tmp)
	}
	b.pending = nil
}

// syncDir makes the entries of dir (renames into it) durable.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	return nil
}

// syncFileSystems flushes each file system holding one of dirs once (a
// site may span mounts: a media directory on another disk, say).
func syncFileSystems(dirs []string) error {
	seen := map[uint64]bool{}
	for _, d := range dirs {
		var st unix.Stat_t
		if err := unix.Stat(d, &st); err != nil {
			return fmt.Errorf("syncing %s: %w", d, err)
		}
		if seen[uint64(st.Dev)] {
			continue
		}
		seen[uint64(st.Dev)] = true
		if err := syncfs(d); err != nil {
			return err
		}
	}
	return nil
}

// syncfs flushes the file system holding dir.
func syncfs(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil && !errors.Is(err, unix.ENOSYS) {
		return err
	}
	return nil
}

// removeStaleTemps removes temporary files an interrupted run left in dir.
func removeStaleTemps(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tmpPrefix) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// writeFileAtomic replaces one file crash-safely (see batch).
func writeFileAtomic(path string, data []byte, mode os.FileMode, mtime *time.Time) error {
	var b batch
	if err := b.add(path, data, mode, mtime); err != nil {
		b.abort()
		return err
	}
	return b.commit()
}

// writeIfChanged writes data to path only if its bytes differ, and
// reports whether it wrote.
func writeIfChanged(path string, data []byte, mode os.FileMode, mtime *time.Time) (bool, error) {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	return true, writeFileAtomic(path, data, mode, mtime)
}
