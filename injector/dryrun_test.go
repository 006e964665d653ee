package injector

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestDryRunCreatesNothing: a dry run creates neither the state directory
// nor its lock, and leaves an existing state directory as it was.
func TestDryRunCreatesNothing(t *testing.T) {
	f := newFixture(t, 8, 3)
	o := f.options()
	o.DryRun = true
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(o.StateDir); !os.IsNotExist(err) {
		t.Fatalf("dry run made the state directory: %v", err)
	}
	o.DryRun = false
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	before := treeSnapshot(t, o.StateDir)
	f.write(t, "src/app/new.php", "<?php // new\n")
	o.DryRun = true
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if after := treeSnapshot(t, o.StateDir); after != before {
		t.Errorf("dry run changed the state directory")
	}
}

// TestDryRunAddedBytes: the bytes a dry run says each page gains are the
// bytes the real run adds, for a first generation and for a new one that
// keeps the previous generation's blocks beside its own.
func TestDryRunAddedBytes(t *testing.T) {
	f := newFixture(t, 12, 40)
	o := f.options()
	origSize := map[string]int{}
	for _, url := range []string{"/", "/p0.html", "/p11.html"} {
		origSize[url] = pageSize(t, f, url)
	}
	for round, change := range []string{"", "src/app/pkg000/file0000.php"} {
		if change != "" {
			f.write(t, change, "<?php // changed\n")
		}
		o.DryRun = true
		dry, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		o.DryRun = false
		real, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		want, got := addedBytes(real), addedBytes(dry)
		total := 0
		for url, n := range want {
			total += n
			if got[url] != n {
				t.Errorf("round %d, %s: dry run says %d bytes, the run added %d", round, url, got[url], n)
			}
		}
		if len(got) != len(want) || total == 0 {
			t.Errorf("round %d: dry run reports %d pages, the run %d (%d bytes)", round, len(got), len(want), total)
		}
		if round == 0 { // what the pages really grew by
			for url, size := range origSize {
				if grew := pageSize(t, f, url) - size; grew != want[url] {
					t.Errorf("%s grew by %d bytes, the run says %d", url, grew, want[url])
				}
			}
		}
	}
}

// pageSize is the size of a fixture page; the others are ignored.
func pageSize(t *testing.T, f *fixture, url string) int {
	t.Helper()
	name := url[1:]
	if url == "/" {
		name = "index.html"
	}
	info, err := os.Stat(filepath.Join(f.dir, "site", name))
	if err != nil {
		t.Fatal(err)
	}
	return int(info.Size())
}

func addedBytes(r *Report) map[string]int {
	out := map[string]int{}
	for _, p := range r.Pages {
		if p.AddedBytes > 0 {
			out[p.URL] = p.AddedBytes
		}
	}
	return out
}
