package capture_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/capture"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/status"

	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/spn"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// captureWorld is an injected live site, an empty Wayback-style archive
// and a Save Page Now server capturing the site into it.
type captureWorld struct {
	live    sitetest.Live
	archive *archivetest.Server
	spn     *archivetest.SPN
}

func newCaptureWorld(t *testing.T, cfg archivetest.SPNConfig, wrap func(dir string, h http.Handler) http.Handler) *captureWorld {
	t.Helper()
	live := sitetest.ServedInjected(t, wrap)
	arch, err := archivetest.New(nil, archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(arch.Close)
	u, _ := url.Parse(live.URL)
	cfg.Access, cfg.Secret, cfg.Allow = "AKEY", "s3cret", []string{u.Host}
	s, err := archivetest.NewSPN(arch, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &captureWorld{live: live, archive: arch, spn: s}
}

// options are a fast run's: the loopback clients, no spot checks, and
// an SPN client polling every few milliseconds (nil with dryRun).
func (w *captureWorld) options(t *testing.T, dryRun bool, secret string) capture.Options {
	t.Helper()
	client := source.NewClient(source.ClientOptions{Rate: 600000})
	o := capture.Options{
		Verify: w.live.VerifyOptions(w.live.Server, false),
		Status: status.Options{Client: client, SpotChecks: status.NoSpotChecks,
			Sources: []source.Source{source.CDXSource{Base: w.archive.URL, Label: "wayback", Client: client}}},
	}
	if !dryRun {
		c, err := spn.New(spn.Options{Base: w.spn.URL, Credentials: spn.Credentials{Access: "AKEY", Secret: secret},
			Rate: spn.Limit{N: 100, Per: time.Second}, PollStart: time.Millisecond, PollMax: 5 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		o.SPN = c
	}
	return o
}

func requestCaptures(t *testing.T, o capture.Options) (*capture.Report, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return capture.Run(ctx, o)
}

// submittedURLs are the url= of the SPN server's submissions, in order.
func submittedURLs(s *archivetest.SPN) []string {
	var out []string
	for _, r := range s.Requests() {
		if r.Method == http.MethodPost {
			out = append(out, r.URL)
		}
	}
	return out
}

// TestRequestCaptures: from an empty archive, capture requests go to the
// root page first (the manifest), then to the carriers needed, fewer
// than all of them and only on the site; status then finds the newest
// generation recoverable, and recover rebuilds the server files byte for
// byte from that archive alone.
func TestRequestCaptures(t *testing.T) {
	w := newCaptureWorld(t, archivetest.SPNConfig{PendingPolls: 2}, nil)
	rep, err := requestCaptures(t, w.options(t, false, "s3cret"))
	if err != nil {
		t.Fatalf("%v\n%+v", err, rep)
	}
	if !rep.Safe || rep.Status.Outcome() != status.NewestRecoverable || rep.Status.Newest != rep.Generation {
		t.Fatalf("not safe: %+v", rep.Status.Generations)
	}
	if rep.ManifestArchived || len(rep.Plan) == 0 || rep.Plan[0].URL != w.live.URL || rep.Plan[0].Why != capture.ForManifest {
		t.Fatalf("plan %+v: want the root page first, for the manifest", rep.Plan)
	}
	if len(rep.Plan) >= rep.Carriers {
		t.Fatalf("%d requests for %d carrier pages: the plan picks nothing", len(rep.Plan), rep.Carriers)
	}
	for _, st := range rep.Stripes {
		if st.Archived != 0 || st.Planned < st.Need || st.Need != min(st.K+capture.DefaultMargin, st.K+100) {
			t.Errorf("stripe %+v", st)
		}
	}
	sent := submittedURLs(w.spn)
	if len(sent) != len(rep.Plan) || rep.Sent != len(sent) {
		t.Fatalf("submitted %v for plan %+v (sent %d)", sent, rep.Plan, rep.Sent)
	}
	for i, u := range sent {
		if u != rep.Plan[i].URL || !strings.HasPrefix(u, w.live.URL) {
			t.Errorf("submission %d: %s, plan %s", i, u, rep.Plan[i].URL)
		}
		if rep.Jobs[i].State != spn.StateSuccess {
			t.Errorf("job %+v", rep.Jobs[i])
		}
	}
	t.Logf("%d requests for %d carrier pages: %+v\n%+v", len(sent), rep.Carriers, rep.Plan, rep.Stripes)
	checkRecovered(t, w)
}

// checkRecovered recovers from the archive alone and compares the files
// with the injected originals.
func checkRecovered(t *testing.T, w *captureWorld) {
	t.Helper()
	out := t.TempDir()
	client := source.NewClient(source.ClientOptions{Rate: 600000})
	if _, err := lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: w.live.Owner, Out: out, SiteURL: w.live.URL,
		Sources: []source.Source{source.CDXSource{Base: w.archive.URL, Client: client}}}); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(filepath.Dir(w.live.Site), "src")
	for _, f := range []string{"app/index.php", "etc/app.conf"} {
		want, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(filepath.Join(out, f)); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: recovered %d bytes (%v), want %d", f, len(got), err, len(want))
		}
	}
}

// TestRequestCapturesDryRun: without an SPN client the plan is made and
// nothing is sent; the archive stays empty.
func TestRequestCapturesDryRun(t *testing.T) {
	w := newCaptureWorld(t, archivetest.SPNConfig{}, nil)
	rep, err := requestCaptures(t, w.options(t, true, ""))
	if err != nil || !rep.DryRun || len(rep.Plan) == 0 || rep.Safe || len(rep.Jobs) != 0 {
		t.Fatalf("%v %+v", err, rep)
	}
	if n := len(w.spn.Requests()); n != 0 {
		t.Fatalf("%d requests to the SPN server on a dry run", n)
	}
}

// TestRequestCapturesArchived: pages the archive already holds (the
// root, with the manifest) are not asked for again, and a second run
// after a successful one asks for nothing.
func TestRequestCapturesArchived(t *testing.T) {
	w := newCaptureWorld(t, archivetest.SPNConfig{}, nil)
	body, err := os.ReadFile(filepath.Join(w.live.Site, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.archive.AddCapture(archivetest.Capture{URL: w.live.URL, Time: time.Now().Add(-time.Minute), Body: body}); err != nil {
		t.Fatal(err)
	}
	rep, err := requestCaptures(t, w.options(t, false, "s3cret"))
	if err != nil {
		t.Fatalf("%v\n%+v", err, rep)
	}
	if !rep.ManifestArchived {
		t.Fatal("the archived root page's manifest was not seen")
	}
	for _, p := range rep.Plan {
		if p.URL == w.live.URL || p.Why != capture.ForBlocks {
			t.Fatalf("plan %+v asks for the archived root page again", rep.Plan)
		}
	}
	again, err := requestCaptures(t, w.options(t, false, "s3cret"))
	if err != nil || len(again.Plan) != 0 || again.Sent != 0 || !again.Safe {
		t.Fatalf("second run: %v, plan %+v", err, again.Plan)
	}
}

// failRootForSPN answers the root page 503 to Save Page Now (any
// client but lazarus's): its capture job fails.
func failRootForSPN(dir string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" && !strings.Contains(r.UserAgent(), "lazarus") {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// TestRequestCapturesStopped: the root page's job fails and the daily
// limit stops the requests after two: short, wrapping spn.ErrDailyLimit,
// the count sent said, the failed job reported; a refused key stops at
// once with spn.ErrRefused.
func TestRequestCapturesStopped(t *testing.T) {
	w := newCaptureWorld(t, archivetest.SPNConfig{Daily: 1}, failRootForSPN)
	rep, err := requestCaptures(t, w.options(t, false, "s3cret"))
	if !errors.Is(err, capture.ErrShort) || !errors.Is(err, spn.ErrDailyLimit) || rep.Sent != 1 || rep.Safe {
		t.Fatalf("daily limit: %v, sent %d", err, rep.Sent)
	}
	if j := rep.Jobs[0]; j.State != spn.StateError || !strings.Contains(j.Error, "error:bad-gateway") || rep.Jobs[1].State != spn.StateError || rep.Jobs[2].State != spn.StateNotSent {
		t.Errorf("jobs %+v", rep.Jobs)
	}
	if !strings.Contains(err.Error(), "1 capture request accepted, 0 captured") || rep.Captured != 0 || rep.Failed != 2 {
		t.Errorf("error does not say how many were sent: %v", err)
	}
	r := newCaptureWorld(t, archivetest.SPNConfig{}, nil)
	rep, err = requestCaptures(t, r.options(t, false, "wrong"))
	if !errors.Is(err, spn.ErrRefused) || rep.Sent != 0 || len(r.spn.Requests()) != 1 {
		t.Fatalf("refused key: %v, %d requests", err, len(r.spn.Requests()))
	}
}

// TestRequestCapturesWait: the archive's index shows captures only 300ms
// after their jobs succeed. Without Wait the audit right after the jobs
// finds nothing yet (short, the requests said); with Wait the audits go
// on until the generation is safe, and no longer.
func TestRequestCapturesWait(t *testing.T) {
	w := newCaptureWorld(t, archivetest.SPNConfig{IndexDelay: 300 * time.Millisecond}, nil)
	rep, err := requestCaptures(t, w.options(t, false, "s3cret"))
	if !errors.Is(err, capture.ErrShort) || rep.Safe || rep.Sent != len(rep.Plan) || rep.Audits != 2 {
		t.Fatalf("without wait: %v, sent %d of %d, %d audits", err, rep.Sent, len(rep.Plan), rep.Audits)
	}
	if !strings.Contains(err.Error(), "capture requests accepted, "+strconv.Itoa(rep.Captured)+" captured, after 2 audits") || rep.Captured != rep.Sent {
		t.Errorf("error %v", err)
	}
	w = newCaptureWorld(t, archivetest.SPNConfig{IndexDelay: 300 * time.Millisecond}, nil)
	o := w.options(t, false, "s3cret")
	o.Wait, o.WaitEvery = 10*time.Second, 100*time.Millisecond
	start := time.Now()
	rep, err = requestCaptures(t, o)
	if err != nil || !rep.Safe || rep.Audits < 3 {
		t.Fatalf("with wait: %v, safe %v after %d audits", err, rep.Safe, rep.Audits)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("waited %v: the audits did not stop once the generation was safe", took)
	}
}
