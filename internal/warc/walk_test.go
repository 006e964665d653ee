package warc

import (
	"archive/zip"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// makeWACZ writes a WACZ holding the given WARC files plus metadata.
func makeWACZ(t *testing.T, name string, warcs map[string][]byte) {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	files := map[string][]byte{"datapackage.json": []byte("{}"), "indexes/index.cdx": nil}
	for n, b := range warcs {
		files["archive/"+n] = b
	}
	for n, b := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestWalk(t *testing.T) {
	dir := t.TempDir()
	one := writeSample(t, true, []int{10})
	two := writeSample(t, false, []int{10, 20})
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "a.warc.gz"), one, 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "b.warc"), two, 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), two, 0o644) // ignored
	makeWACZ(t, filepath.Join(dir, "c.wacz"), map[string][]byte{"x.warc.gz": one, "y.warc": two})

	counts := map[string]int{}
	err := Walk(dir, func(file string, rec *Record) error {
		rel, _ := filepath.Rel(dir, file)
		counts[filepath.ToSlash(rel)]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"a.warc.gz": 2, "sub/b.warc": 3, "c.wacz#archive/x.warc.gz": 2, "c.wacz#archive/y.warc": 3}
	if !reflect.DeepEqual(counts, want) {
		t.Errorf("records per file %v, want %v", counts, want)
	}

	// A single file is walked too; SkipFile skips the rest of it.
	n := 0
	err = Walk(filepath.Join(dir, "sub", "b.warc"), func(string, *Record) error { n++; return SkipFile })
	if err != nil || n != 1 {
		t.Errorf("single file with SkipFile: %d records, err %v", n, err)
	}
	// Any other error from fn stops the walk and is returned.
	stop := errors.New("stop")
	if err := Walk(dir, func(string, *Record) error { return stop }); err != stop {
		t.Errorf("Walk returned %v, want the callback's error", err)
	}
}

func TestWACZ(t *testing.T) {
	name := filepath.Join(t.TempDir(), "t.wacz")
	makeWACZ(t, name, map[string][]byte{"b.warc.gz": writeSample(t, true, []int{5}), "a.warc": writeSample(t, false, nil)})
	w, err := OpenWACZ(name)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if want := []string{"archive/a.warc", "archive/b.warc.gz"}; !reflect.DeepEqual(w.Files, want) {
		t.Errorf("Files %v, want %v", w.Files, want)
	}
	if _, err := w.Open("datapackage.json"); err == nil {
		t.Error("opened a non-WARC member")
	}
	if _, err := OpenWACZ(filepath.Join(t.TempDir(), "missing.wacz")); err == nil {
		t.Error("opened a missing WACZ")
	}
}

// TestWalkNoFiles: a root that is, or holds, no WARC or WACZ file is an
// error, not an empty archive (`--source warc=config.ini`, `warc=/dev/zero`
// and an empty directory once all read as 0 captures).
func TestWalkNoFiles(t *testing.T) {
	dir := t.TempDir()
	ini := filepath.Join(dir, "config.ini")
	if err := os.WriteFile(ini, []byte("x=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{dir, ini, t.TempDir()} {
		err := Walk(root, func(string, *Record) error { return nil })
		if !errors.Is(err, ErrNoFiles) || !strings.Contains(err.Error(), root) {
			t.Errorf("%s: %v, want ErrNoFiles naming it", root, err)
		}
	}
}
