package bundle

import (
	"archive/tar"
	"bytes"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestOwnersRecordedByName: Collect records each entry's owner and group
// by name, and the tar carries them as uname and gname with uid and gid 0.
func TestOwnersRecordedByName(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving files to another user needs root (CI runs as root)")
	}
	root := t.TempDir()
	mustWrite(t, filepath.Join(root, "site/upload.png"), "png")
	mustWrite(t, filepath.Join(root, "site/wp-config.php"), "<?php")
	ok(t, os.Symlink("upload.png", filepath.Join(root, "site/link")))
	for _, p := range []string{"site", "site/upload.png", "site/link"} {
		ok(t, os.Lchown(filepath.Join(root, p), 65534, 65534))
	}
	entries, _, err := Collect(filepath.Join(root, "site"), "wp", CollectOptions{})
	ok(t, err)
	payload, _ := pack(t, entries)
	got := map[string][2]string{}
	tr := tar.NewReader(bytes.NewReader(unpackTar(t, payload)))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		ok(t, err)
		if h.Uid != 0 || h.Gid != 0 {
			t.Errorf("%s: uid %d gid %d recorded, want 0", h.Name, h.Uid, h.Gid)
		}
		got[h.Name] = [2]string{h.Uname, h.Gname}
	}
	nobody, rootName := [2]string{name(t, 65534, false), name(t, 65534, true)}, [2]string{"root", name(t, 0, true)}
	want := map[string][2]string{"wp/": nobody, "wp/upload.png": nobody, "wp/link": nobody, "wp/wp-config.php": rootName}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("recorded %v, want %v", got, want)
	}
}

// TestOwnersRestoredByName: as root, entries get the user and group the
// payload names where this system has them, and the report counts them;
// a name the system lacks leaves the entries to the extracting user and
// says so; extracting as another user sets no owner and says why.
func TestOwnersRestoredByName(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving files to another user needs root (CI runs as root)")
	}
	nobody, nogroup := name(t, 65534, false), name(t, 65534, true)
	owned := func(e Entry, u, g string) Entry { e.Uname, e.Gname = u, g; return e }
	payload, _ := pack(t, []Entry{
		owned(memDir("wp", 0o755), nobody, nogroup),
		owned(memFile("wp/a.php", []byte("a"), 0o644), nobody, nogroup),
		owned(memFile("wp/b.php", []byte("b"), 0o755|fs.ModeSetgid), nobody, nogroup),
		owned(memLink("wp/l", "a.php"), nobody, nogroup),
		owned(memFile("wp/c.php", []byte("c"), 0o640), "no-such-user-lazarus", nogroup),
		memFile("wp/d.php", []byte("d"), 0o644),
	})
	dir := t.TempDir()
	rep, err := Extract(bytes.NewReader(payload), dir, ExtractOptions{KeepSetuid: true})
	ok(t, err)
	for p, want := range map[string][2]int{"wp": {65534, 65534}, "wp/a.php": {65534, 65534}, "wp/b.php": {65534, 65534}, "wp/l": {65534, 65534}, "wp/c.php": {0, 65534}, "wp/d.php": {0, 0}} {
		if got := ids(t, filepath.Join(dir, p)); got != want {
			t.Errorf("%s: owned by %v, want %v", p, got, want)
		}
	}
	if info, _ := os.Stat(filepath.Join(dir, "wp/b.php")); info.Mode()&os.ModeSetgid == 0 {
		t.Error("setgid bit lost when the owner was set")
	}
	want := []Ownership{
		{User: "no-such-user-lazarus", Group: nogroup, Entries: 1, Reason: "no user no-such-user-lazarus here"},
		{User: nobody, Group: nogroup, Entries: 4, Restored: true},
	}
	if !reflect.DeepEqual(rep.Owners, want) {
		t.Errorf("owners %+v, want %+v", rep.Owners, want)
	}

	geteuid, getegid = func() int { return 65534 }, func() int { return 65534 }
	defer func() { geteuid, getegid = os.Geteuid, os.Getegid }()
	dir = t.TempDir()
	rep, err = Extract(bytes.NewReader(payload), dir, ExtractOptions{})
	ok(t, err)
	if got := ids(t, filepath.Join(dir, "wp/a.php")); got != [2]int{0, 0} {
		t.Errorf("as another user: wp/a.php owned by %v, want left alone", got)
	}
	want = []Ownership{
		{User: "no-such-user-lazarus", Group: nogroup, Entries: 1, Reason: "not running as root"},
		{User: nobody, Group: nogroup, Entries: 4, Restored: true}, // the extracting user's own name and group
	}
	if !reflect.DeepEqual(rep.Owners, want) {
		t.Errorf("as %s: owners %+v, want %+v", nobody, rep.Owners, want)
	}
}

// name returns the name of user (or group) id.
func name(t *testing.T, id int, group bool) string {
	t.Helper()
	if group {
		g, err := user.LookupGroupId(strconv.Itoa(id))
		ok(t, err)
		return g.Name
	}
	u, err := user.LookupId(strconv.Itoa(id))
	ok(t, err)
	return u.Username
}

func ids(t *testing.T, p string) [2]int {
	t.Helper()
	info, err := os.Lstat(p)
	ok(t, err)
	st := info.Sys().(*syscall.Stat_t)
	return [2]int{int(st.Uid), int(st.Gid)}
}

func mustWrite(t *testing.T, p, content string) {
	t.Helper()
	ok(t, os.MkdirAll(filepath.Dir(p), 0o755))
	ok(t, os.WriteFile(p, []byte(content), 0o644))
}

func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestOwnersBounded: a payload naming more owners than MaxOwners gets
// the rest counted together, not looked up, and the counts stay bounded.
func TestOwnersBounded(t *testing.T) {
	lookups := 0
	defer func(f func(string) (int, error)) { lookupUser = f }(lookupUser)
	lookupUser = func(string) (int, error) { lookups++; return -1, os.ErrNotExist }
	o := newOwners()
	o.root = true
	for i := range MaxOwners + 500 {
		o.resolve("no-such-user-"+strconv.Itoa(i), "")
	}
	rep := o.report()
	if len(rep) != MaxOwners+1 || lookups > MaxOwners {
		t.Fatalf("%d counts, %d names looked up; want %d and at most %d", len(rep), lookups, MaxOwners+1, MaxOwners)
	}
	total := 0
	for _, r := range rep {
		total += r.Entries
	}
	if total != MaxOwners+500 {
		t.Errorf("%d entries counted, want %d", total, MaxOwners+500)
	}
}

// TestOwnerNamesOverLimitNotKept: a hostile payload's user and group
// names longer than the format allows (each pax record may hold about a
// MiB) are neither looked up nor kept: the entries are counted once as
// not given their owner, so the report and the directories waiting for
// their metadata hold no copy of such names.
func TestOwnerNamesOverLimitNotKept(t *testing.T) {
	long := strings.Repeat("u", 64<<10)
	owned := func(e tarEntry, i int) tarEntry {
		e.hdr.Uname, e.hdr.Gname = long+strconv.Itoa(i), long
		return e
	}
	payload := hostile(t, owned(dirHdr("wp/"), 0), owned(reg("wp/a.php", "a"), 1), owned(reg("wp/b.php", "b"), 2), owned(symlinkHdr("wp/l", "a.php"), 3))
	dir := t.TempDir()
	rep, err := Extract(bytes.NewReader(payload), dir, ExtractOptions{})
	ok(t, err)
	want := []Ownership{{Entries: 4, Reason: "owner or group name longer than 256 bytes"}}
	if !reflect.DeepEqual(rep.Owners, want) {
		t.Errorf("owners %.200v, want %+v", rep.Owners, want)
	}
	if got := ids(t, filepath.Join(dir, "wp/a.php")); got != [2]int{os.Geteuid(), os.Getegid()} {
		t.Errorf("wp/a.php owned by %v, want the extracting user's", got)
	}
}
