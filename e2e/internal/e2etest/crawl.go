package e2etest

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Crawl mirrors the site at url with wget into a WARC in dir, as an
// archive's crawler would, and returns the WARC; extra are more of
// wget's options (-e robots=off to crawl what robots.txt disallows). A
// site's links to addresses that answer errors (wget's exit status 8)
// are logged, not fatal.
func Crawl(t *testing.T, wget, url, dir string, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), CrawlTimeout)
	defer cancel()
	args := append([]string{"--mirror", "--no-verbose", "--no-host-directories", "--tries=2", "--timeout=30",
		"--warc-file=" + filepath.Join(dir, "crawl"), "--no-warc-keep-log", "-P", filepath.Join(dir, "mirror")}, extra...)
	cmd := exec.CommandContext(ctx, wget, append(args, url)...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 8 {
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "ERROR") || strings.Contains(l, "error") {
				t.Logf("wget: %s", l)
			}
		}
	} else if err != nil {
		t.Fatalf("wget: %v\n%s", err, Tail(out))
	}
	warc := filepath.Join(dir, "crawl.warc.gz")
	LogSize(t, "wget WARC", warc)
	return warc
}
