package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/genstate"
	"github.com/lazarus-preserve/lazarus/internal/sitetest"
)

// deploySite is a static site deployed in place (inject rewrites the
// served directory, as the cron and systemd recipes do), an archive that
// starts empty, and the key files: the world of a deploy's loop.
type deploySite struct {
	s             *sitetest.Site
	url, server   string
	ia            string
	archive       *archivetest.Server
	injects, caps int
}

func newDeploySite(t *testing.T) *deploySite {
	t.Helper()
	s := sitetest.NewSite(t)
	sitetest.Linked(t, s.Dir, 6)
	sitetest.WriteFile(t, s.Dir, "src/app/index.php", []byte("<?php echo 1;"))
	srv := httptest.NewServer(http.FileServer(http.Dir(s.Pages())))
	t.Cleanup(srv.Close)
	arch, err := archivetest.New(nil, archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(arch.Close)
	_, server := s.KeyFiles(t)
	ia := s.Path("ia.keys")
	sitetest.WriteFile(t, s.Dir, "ia.keys", []byte("AKEY:"+captureSecret+"\n"))
	if err := os.Chmod(ia, 0o600); err != nil {
		t.Fatal(err)
	}
	return &deploySite{s: s, url: srv.URL + "/", server: server, ia: ia, archive: arch}
}

// injectReport is what the test reads of inject --json.
type injectReport struct {
	Generation   string                `json:"generation"`
	New          bool                  `json:"new"`
	Kept         []keptGeneration      `json:"kept_generations"`
	ArchiveState []genstate.Generation `json:"archive_state"`
}

type keptGeneration struct {
	Generation string `json:"generation"`
	Carried    int    `json:"carried"`
}

// inject changes the server side and injects a new generation.
func (d *deploySite) inject(t *testing.T) injectReport {
	t.Helper()
	d.injects++
	sitetest.WriteFile(t, d.s.Dir, "src/app/index.php", []byte(fmt.Sprintf("<?php echo %d;", d.injects)))
	var stdout, stderr bytes.Buffer
	code := runInject([]string{"--site", d.s.Pages(), "--site-url", d.url, "--key", d.server, "--include", d.s.Path("src/app"),
		"--state", d.s.Path("state"), "--json"}, &stdout, &stderr)
	var r injectReport
	if err := json.Unmarshal(stdout.Bytes(), &r); code != exitOK || err != nil || !r.New {
		t.Fatalf("inject %d: exit %d (%v)\n%s\n%s", d.injects, code, err, stdout.String(), stderr.String())
	}
	return r
}

// capture runs lazarus capture with keys and a Save Page Now stand-in
// whose jobs all fail when failing, waiting up to wait for the archive
// to confirm.
func (d *deploySite) capture(t *testing.T, failing bool, wait time.Duration) (int, string) {
	t.Helper()
	var cfg archivetest.SPNConfig
	if failing {
		cfg.JobErrors = 1 << 20
	}
	code, stdout, stderr, _ := d.captureWith(t, cfg, "--access-key-file", d.ia, "--wait", wait.String())
	return code, stdout + stderr
}

// captureWith runs lazarus capture with args against a Save Page Now
// stand-in set up as cfg says (the key pair AKEY, this site allowed),
// fast, with inject's state, and returns what it printed and the
// stand-in's request log.
func (d *deploySite) captureWith(t *testing.T, cfg archivetest.SPNConfig, args ...string) (int, string, string, []archivetest.SPNRequest) {
	t.Helper()
	d.caps++
	// Captures are named by URL and timestamp to the second, as on the
	// Wayback: a page captured again within the same second as before
	// would replay the earlier capture.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
	cfg.Access, cfg.Secret = "AKEY", captureSecret
	cfg.Allow = []string{strings.TrimPrefix(strings.TrimSuffix(d.url, "/"), "http://")}
	s, err := archivetest.NewSPN(d.archive, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	capturePollStart, capturePollMax = time.Millisecond, 5*time.Millisecond
	t.Cleanup(func() { capturePollStart, capturePollMax = 0, 0 })
	var stdout, stderr bytes.Buffer
	code := runCapture(append([]string{"--url", d.url, "--key", d.server, "--state", d.s.Path("state"),
		"--spn", s.URL, "--source", "wayback=" + d.archive.URL, "--site-rate", "600000", "--archive-rate", "600000", "--rate", "100/s",
		"--wait-every", "50ms", "--retry", "50ms"}, args...), &stdout, &stderr)
	if strings.Contains(stdout.String()+stderr.String(), captureSecret) {
		t.Fatal("the secret was printed")
	}
	return code, stdout.String(), stderr.String(), s.Requests()
}

func keptIDs(r injectReport) []string {
	var out []string
	for _, k := range r.Kept {
		out = append(out, k.Generation)
	}
	return out
}

// TestKeepUntilConfirmed: make-before-break by confirmation across
// injects. Generation 1 is confirmed by capture. Generation 2's requests
// all fail: it is not confirmed, so generation 3's inject keeps both 2
// and 1 on the pages (not the one --keep-previous would keep). Once
// capture confirms generation 3, the next inject keeps generation 3
// alone. Each inject's JSON says each generation's recorded state.
func TestKeepUntilConfirmed(t *testing.T) {
	d := newDeploySite(t)
	g1 := d.inject(t)
	if len(g1.ArchiveState) != 1 || g1.ArchiveState[0].ID != g1.Generation || g1.ArchiveState[0].State() != genstate.StatePublished {
		t.Fatalf("first inject's archive state %+v", g1.ArchiveState)
	}
	if code, out := d.capture(t, false, 10*time.Second); code != exitOK || !strings.Contains(out, "confirmed") {
		t.Fatalf("capture of generation 1: exit %d\n%s", code, out)
	}
	g2 := d.inject(t)
	if !slices.Equal(keptIDs(g2), []string{g1.Generation}) {
		t.Fatalf("generation 2 keeps %v, want generation 1", keptIDs(g2))
	}
	if code, out := d.capture(t, true, 0); code != exitPartial {
		t.Fatalf("failing capture of generation 2: exit %d\n%s", code, out)
	}
	g3 := d.inject(t)
	if want := []string{g2.Generation, g1.Generation}; !slices.Equal(keptIDs(g3), want) {
		t.Fatalf("generation 3 keeps %v, want %v: generation 2 was never confirmed", keptIDs(g3), want)
	}
	for _, k := range g3.Kept {
		if k.Carried == 0 {
			t.Fatalf("generation %s kept but none of its blocks on the pages: %+v", k.Generation, g3.Kept)
		}
	}
	byID := map[string]genstate.Generation{}
	for _, g := range g3.ArchiveState {
		byID[g.ID] = g
	}
	if byID[g1.Generation].State() != genstate.StateConfirmed || byID[g2.Generation].State() != genstate.StateRequested ||
		byID[g3.Generation].State() != genstate.StatePublished {
		t.Fatalf("archive state %+v", g3.ArchiveState)
	}
	if code, out := d.capture(t, false, 10*time.Second); code != exitOK {
		t.Fatalf("capture of generation 3: exit %d\n%s", code, out)
	}
	g4 := d.inject(t)
	if !slices.Equal(keptIDs(g4), []string{g3.Generation}) {
		t.Fatalf("generation 4 keeps %v, want generation 3 alone (confirmed)", keptIDs(g4))
	}
	rec, err := genstate.Read(d.s.Path("state"))
	if err != nil || rec.RestorePoint != g3.Generation {
		t.Fatalf("record %+v %v", rec, err)
	}
	if g := rec.Find(g3.Generation); g == nil || g.Live.IsZero() || len(g.ConfirmedIn) != 1 || g.ConfirmedIn[0].Archive != "wayback" ||
		len(g.Requested) != 1 || !g.Requested[0].Keyed {
		t.Fatalf("generation 3's record %+v", g)
	}
}

// keyLines are stderr's lines that say how to get keys.
func keyLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "archive.org/account/s3.php") {
			out = append(out, l)
		}
	}
	return out
}

// TestCaptureCLIWithoutKeys: without keys capture asks anyway, politely,
// and says in one line how to get keys and what they buy. An archive
// that refuses requests without keys is asked once: the refusal is
// recorded and the next run sends nothing, saying so in one line.
// --requests off sends nothing and prints no such line. An archive that
// takes requests without keys has them confirmed by its listing.
func TestCaptureCLIWithoutKeys(t *testing.T) {
	d := newDeploySite(t)
	d.inject(t)
	code, _, stderr, reqs := d.captureWith(t, archivetest.SPNConfig{})
	if lines := keyLines(stderr); code != exitPartial || len(reqs) != 1 || len(lines) != 1 || !strings.Contains(lines[0], "12 captures a minute") {
		t.Fatalf("refused without keys: exit %d, %d requests, key lines %q\n%s", code, len(reqs), lines, stderr)
	}
	rec, _ := genstate.Read(d.s.Path("state"))
	if _, ok := rec.KeylessRefusedSince("wayback", time.Now()); !ok {
		t.Fatalf("the refusal was not recorded: %+v", rec)
	}
	code, _, stderr, reqs = d.captureWith(t, archivetest.SPNConfig{Anonymous: archivetest.AnonymousCapture})
	if lines := keyLines(stderr); code != exitPartial || len(reqs) != 0 || len(lines) != 1 || !strings.Contains(lines[0], "refused requests without keys on") {
		t.Fatalf("after a refusal: exit %d, %d requests, key lines %q\n%s", code, len(reqs), lines, stderr)
	}
	code, _, stderr, reqs = d.captureWith(t, archivetest.SPNConfig{}, "--requests", "off")
	if code != exitPartial || len(reqs) != 0 || len(keyLines(stderr)) != 0 || !strings.Contains(stderr, "nothing was asked") {
		t.Fatalf("--requests off: exit %d, %d requests\n%s", code, len(reqs), stderr)
	}
	n := newDeploySite(t)
	n.inject(t)
	code, stdout, stderr, reqs := n.captureWith(t, archivetest.SPNConfig{Anonymous: archivetest.AnonymousCapture}, "--wait", "10s")
	if code != exitOK || len(reqs) == 0 || len(keyLines(stderr)) != 1 || !strings.Contains(stdout, "without keys") {
		t.Fatalf("taken without keys: exit %d, %d requests\n%s\n%s", code, len(reqs), stdout, stderr)
	}
	for _, r := range reqs {
		if r.Status == http.StatusUnauthorized {
			t.Fatalf("a request with a key: %+v", r)
		}
	}
}
