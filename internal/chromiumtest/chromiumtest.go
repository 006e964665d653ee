// Package chromiumtest renders pages with headless Chromium for tests
// (e2e/setup.sh installs Debian's chromium): one screenshot helper for
// every test that checks what a browser draws.
package chromiumtest

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Timeout bounds one Chromium run.
const Timeout = 90 * time.Second

// Find returns the chromium command's path, or skips the test with a
// hint when it is not installed.
func Find(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed; run `bash e2e/setup.sh` as root to install it")
	}
	return p
}

// Screenshot renders url with headless Chromium (the binary at chromium)
// in a width × height window and returns the decoded image and the PNG
// bytes. Host names other than localhost and 127.0.0.1 do not resolve and QUIC is off,
// so a page can reach nothing but loopback and files.
func Screenshot(t testing.TB, chromium, url string, width, height int) (image.Image, []byte) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--hide-scrollbars",
		"--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height), "--screenshot="+file, url)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	cmd.WaitDelay = 5 * time.Second // Chromium's helpers may hold the output open
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", url, err, tail(out))
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("chromium wrote no screenshot of %s: %v", url, err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("screenshot of %s: %v", url, err)
	}
	return img, raw
}

// tail returns the last 2 KiB of out.
func tail(out []byte) []byte {
	if len(out) > 2048 {
		return out[len(out)-2048:]
	}
	return out
}
