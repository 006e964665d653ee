//go:build unix

package bundle

import (
	"net"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCollectSkipsSpecialFiles checks that FIFOs and sockets are skipped
// with a warning each, and the rest is collected.
func TestCollectSkipsSpecialFiles(t *testing.T) {
	src := t.TempDir()
	makeTree(t, src, []spec{sFile("keep", []byte("k"), 0o644)})
	if err := syscall.Mkfifo(filepath.Join(src, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(src, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	entries, warnings, err := Collect(src, "", CollectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name != "keep" {
		t.Errorf("entries %+v, want only keep", entries)
	}
	if len(warnings) != 2 || !strings.Contains(warnings[0].String(), "pipe") || !strings.Contains(warnings[1].String(), "sock") {
		t.Errorf("warnings %v, want pipe and sock", warnings)
	}
}
