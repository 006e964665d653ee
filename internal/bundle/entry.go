package bundle

import (
	"archive/tar"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"
)

// EntryType is the kind of an Entry.
type EntryType uint8

// Entry types. The zero EntryType is invalid.
const (
	TypeRegular EntryType = iota + 1 // regular file with contents
	TypeDir                          // directory
	TypeSymlink                      // symbolic link, never followed
)

// String returns "regular", "dir" or "symlink".
func (t EntryType) String() string {
	switch t {
	case TypeRegular:
		return "regular"
	case TypeDir:
		return "dir"
	case TypeSymlink:
		return "symlink"
	}
	return fmt.Sprintf("EntryType(%d)", uint8(t))
}

// modeBits are the FileMode bits a payload records: permissions plus
// setuid, setgid and sticky.
const modeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// maxEntrySize bounds the size of one regular file (4 EiB), keeping size
// arithmetic far from overflow.
const maxEntrySize = 1 << 62

// maxNameLen bounds entry names (Linux PATH_MAX).
const maxNameLen = 4096

// stagingPrefix starts the names of Extract's temporary directories; no
// top-level entry may use it.
const stagingPrefix = ".lazarus-staging-"

// Entry is one file, directory or symbolic link to pack.
type Entry struct {
	// Name is the slash-separated relative path inside the payload, clean
	// and without a trailing slash (also for directories).
	Name string
	// Type is the kind of entry.
	Type EntryType
	// Mode holds the permission bits and optionally fs.ModeSetuid,
	// fs.ModeSetgid and fs.ModeSticky; other bits are rejected.
	Mode fs.FileMode
	// ModTime is recorded with full (nanosecond) precision.
	ModTime time.Time
	// Size is the exact content length of a regular file; zero otherwise.
	Size int64
	// Linkname is the target of a symbolic link, recorded verbatim.
	Linkname string
	// Open returns the contents of a regular file; it must yield exactly
	// Size bytes. Nil for other types.
	Open func() (io.ReadCloser, error)
	// Uname and Gname are the names of the user and group that own the
	// entry, each empty when unknown (at most 256 bytes, no NUL). Numeric
	// ids are never recorded: they mean nothing on another system.
	Uname, Gname string
}

// validate checks the entry's fields (but not its relation to others).
func (e *Entry) validate() error {
	if err := validateName(e.Name); err != nil {
		return err
	}
	for _, n := range []string{e.Uname, e.Gname} {
		if len(n) > maxOwnerName || strings.IndexByte(n, 0) >= 0 {
			return fmt.Errorf("entry %q: owner or group name %q is longer than %d bytes or holds a NUL byte", e.Name, n, maxOwnerName)
		}
	}
	if e.Mode&^modeBits != 0 {
		return fmt.Errorf("entry %q: mode %v has bits other than permissions, setuid, setgid and sticky", e.Name, e.Mode)
	}
	switch e.Type {
	case TypeRegular:
		if e.Size < 0 || e.Size > maxEntrySize || e.Open == nil || e.Linkname != "" {
			return fmt.Errorf("entry %q: regular file needs a size in 0..2^62, an Open function and no link target", e.Name)
		}
	case TypeDir, TypeSymlink:
		if e.Size != 0 || e.Open != nil {
			return fmt.Errorf("entry %q: a %v has no contents (size %d)", e.Name, e.Type, e.Size)
		}
		if (e.Type == TypeSymlink) != (e.Linkname != "") {
			return fmt.Errorf("entry %q: only a symlink has a link target, and it must not be empty", e.Name)
		}
		if strings.IndexByte(e.Linkname, 0) >= 0 {
			return fmt.Errorf("entry %q: link target contains a NUL byte", e.Name)
		}
	default:
		return fmt.Errorf("entry %q: invalid type %v", e.Name, e.Type)
	}
	return nil
}

// tarName is the entry's name inside the tar stream (directories end in /).
func (e *Entry) tarName() string {
	if e.Type == TypeDir {
		return e.Name + "/"
	}
	return e.Name
}

// tarHeader returns the canonical tar header of the entry.
func (e *Entry) tarHeader() *tar.Header {
	h := &tar.Header{
		Name:    e.tarName(),
		Mode:    tarMode(e.Mode),
		ModTime: e.ModTime,
		Uname:   e.Uname,
		Gname:   e.Gname,
		Format:  tar.FormatPAX,
	}
	switch e.Type {
	case TypeRegular:
		h.Typeflag, h.Size = tar.TypeReg, e.Size
	case TypeDir:
		h.Typeflag = tar.TypeDir
	case TypeSymlink:
		h.Typeflag, h.Linkname = tar.TypeSymlink, e.Linkname
	}
	return h
}

// Unix mode bits as stored in tar headers.
const (
	tarSetuid = 0o4000
	tarSetgid = 0o2000
	tarSticky = 0o1000
)

// UnixMode returns the entry's mode as recorded in the tar header:
// permission bits plus 04000 setuid, 02000 setgid and 01000 sticky.
func (e *Entry) UnixMode() uint32 { return uint32(tarMode(e.Mode)) }

// tarMode converts FileMode bits to the tar header's Unix mode.
func tarMode(m fs.FileMode) int64 {
	v := int64(m.Perm())
	if m&fs.ModeSetuid != 0 {
		v |= tarSetuid
	}
	if m&fs.ModeSetgid != 0 {
		v |= tarSetgid
	}
	if m&fs.ModeSticky != 0 {
		v |= tarSticky
	}
	return v
}

// fileMode converts a tar header's Unix mode to FileMode bits, ignoring
// anything but permissions, setuid, setgid and sticky.
func fileMode(v int64) fs.FileMode {
	m := fs.FileMode(v) & fs.ModePerm
	if v&tarSetuid != 0 {
		m |= fs.ModeSetuid
	}
	if v&tarSetgid != 0 {
		m |= fs.ModeSetgid
	}
	if v&tarSticky != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// validateName checks that name is a clean, relative, slash-separated path
// that is safe to create on any platform. Errors wrap ErrUnsafePath.
func validateName(name string) error {
	reason := nameProblem(name)
	if reason == "" {
		return nil
	}
	return tagf(ErrUnsafePath, "entry name %q: %s", name, reason)
}

// nameProblem returns why name is unsafe, or "" if it is fine.
func nameProblem(name string) string {
	switch {
	case name == "" || name == ".":
		return "empty name"
	case len(name) > maxNameLen:
		return fmt.Sprintf("longer than %d bytes", maxNameLen)
	case strings.IndexByte(name, 0) >= 0:
		return "contains a NUL byte"
	case strings.IndexByte(name, '\\') >= 0:
		return "contains a backslash"
	case name[0] == '/':
		return "absolute path"
	case len(name) >= 2 && name[1] == ':' && isASCIILetter(name[0]):
		return "starts with a drive letter"
	case name == ".." || strings.HasPrefix(name, "../") || strings.HasSuffix(name, "/..") || strings.Contains(name, "/../"):
		return "contains a .. component"
	case path.Clean(name) != name:
		return "not a clean path (., empty component or trailing slash)"
	case strings.HasPrefix(name, stagingPrefix):
		return "uses the reserved prefix " + stagingPrefix
	}
	return ""
}

func isASCIILetter(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// parentDirs returns the proper ancestors of name, outermost first:
// "a/b/c" gives "a", "a/b".
func parentDirs(name string) []string {
	var dirs []string
	for i := 0; i < len(name); i++ {
		if name[i] == '/' {
			dirs = append(dirs, name[:i])
		}
	}
	return dirs
}
