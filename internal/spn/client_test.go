package spn_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/spn"
)

var creds = spn.Credentials{Access: "AKEY", Secret: "s3cret"}

// world is a loopback site of pages /p0…/p9 (and a 404), an empty archive
// and an SPN server capturing into it.
type world struct {
	site    *httptest.Server
	archive *archivetest.Server
	spn     *archivetest.SPN
}

func newWorld(t *testing.T, cfg archivetest.SPNConfig) *world {
	t.Helper()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<html><body>page %s</body></html>", r.URL.Path)
	}))
	t.Cleanup(site.Close)
	arch, err := archivetest.New(nil, archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(arch.Close)
	if cfg.Access == "" {
		cfg.Access, cfg.Secret = creds.Access, creds.Secret
	}
	cfg.Allow = []string{strings.TrimPrefix(site.URL, "http://")}
	s, err := archivetest.NewSPN(arch, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &world{site: site, archive: arch, spn: s}
}

// client is a fast client of the world's SPN server.
func (w *world) client(t *testing.T, o spn.Options) *spn.Client {
	t.Helper()
	o.Base = w.spn.URL
	if o.Credentials == (spn.Credentials{}) {
		o.Credentials = creds
	}
	if o.Rate.N == 0 {
		o.Rate = spn.Limit{N: 1000, Per: time.Second}
	}
	o.PollStart, o.PollMax, o.SessionWait = 2*time.Millisecond, 10*time.Millisecond, 20*time.Millisecond
	c, err := spn.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (w *world) urls(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("%s/p%d", w.site.URL, i))
	}
	return out
}

// saveAll runs SaveAll and returns the results by URL.
func saveAll(t *testing.T, c *spn.Client, urls []string) (map[string]spn.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mu sync.Mutex
	got := map[string]spn.Result{}
	err := c.SaveAll(ctx, urls, func(r spn.Result) {
		mu.Lock()
		defer mu.Unlock()
		if _, dup := got[r.URL]; dup {
			t.Errorf("%s reported twice", r.URL)
		}
		got[r.URL] = r
	})
	if len(got) != len(urls) {
		t.Fatalf("%d results for %d URLs", len(got), len(urls))
	}
	return got, err
}

// submitted lists the url= of every POST, in order.
func submitted(s *archivetest.SPN) []string {
	var out []string
	for _, r := range s.Requests() {
		if r.Method == http.MethodPost {
			out = append(out, r.URL)
		}
	}
	return out
}

// TestSaveAll: every page is submitted once, in order, polled to
// success, and the archive's CDX API then lists it.
func TestSaveAll(t *testing.T) {
	w := newWorld(t, archivetest.SPNConfig{PendingPolls: 2})
	urls := w.urls(6)
	got, err := saveAll(t, w.client(t, spn.Options{MaxPending: 2}), urls)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range urls {
		if r := got[u]; r.State != spn.StateSuccess || r.OriginalURL != u || r.Time.IsZero() || r.JobID == "" {
			t.Errorf("%s: %+v", u, r)
		}
	}
	if s := submitted(w.spn); !slices.Equal(s, urls) {
		t.Fatalf("submitted %v, want %v", s, urls)
	}
	resp, err := http.Get(w.archive.URL + "/cdx/search/cdx?url=" + url.QueryEscape(strings.TrimPrefix(w.site.URL, "http://")+"/*"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	listing, err := io.ReadAll(resp.Body)
	if lines := strings.Count(string(listing), "\n"); err != nil || lines != len(urls) {
		t.Fatalf("CDX lists %d captures, want %d (%v):\n%s", lines, len(urls), err, listing)
	}
}

// TestRetryAfter: the server caps submissions at 2 a second and answers
// 429 with Retry-After: 1; the client waits that long after every 429
// before submitting again, and every page is captured in the end.
func TestRetryAfter(t *testing.T) {
	w := newWorld(t, archivetest.SPNConfig{PerWindow: 2, Window: time.Second, RetryAfter: time.Second})
	urls := w.urls(5)
	got, err := saveAll(t, w.client(t, spn.Options{MaxPending: 5}), urls)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range urls {
		if got[u].State != spn.StateSuccess {
			t.Errorf("%s: %+v", u, got[u])
		}
	}
	posts := w.spn.Submissions()
	throttled := 0
	for i, r := range posts {
		if r.Status != http.StatusTooManyRequests {
			continue
		}
		throttled++
		if i+1 < len(posts) && posts[i+1].Time.Sub(r.Time) < time.Second-50*time.Millisecond {
			t.Errorf("submitted again %v after a 429 asking for 1s", posts[i+1].Time.Sub(r.Time))
		}
	}
	if throttled == 0 {
		t.Fatal("no 429 answered: the test proves nothing")
	}
}

// TestRate: the client never submits more than its rate in any window,
// whatever the server would take.
func TestRate(t *testing.T) {
	w := newWorld(t, archivetest.SPNConfig{})
	limit := spn.Limit{N: 3, Per: 300 * time.Millisecond}
	if _, err := saveAll(t, w.client(t, spn.Options{Rate: limit, MaxPending: 10}), w.urls(8)); err != nil {
		t.Fatal(err)
	}
	posts := w.spn.Submissions()
	if got := archivetest.MaxInWindow(posts, limit.Per); got > limit.N {
		t.Fatalf("%d submissions within %v, limit %d", got, limit.Per, limit.N)
	}
	if span := posts[len(posts)-1].Time.Sub(posts[0].Time); span < 2*limit.Per-50*time.Millisecond {
		t.Fatalf("8 submissions at 3 per %v took only %v", limit.Per, span)
	}
}

// TestSessionLimit: with one session allowed and four jobs the client
// would keep pending, the server answers error:user-session-limit; the
// client waits and submits again until every page is captured.
func TestSessionLimit(t *testing.T) {
	w := newWorld(t, archivetest.SPNConfig{Sessions: 1})
	urls := w.urls(4)
	got, err := saveAll(t, w.client(t, spn.Options{MaxPending: 4}), urls)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range urls {
		if got[u].State != spn.StateSuccess {
			t.Errorf("%s: %+v", u, got[u])
		}
	}
	limited := 0
	for _, r := range w.spn.Requests() {
		if r.Answer == spn.ExtSessionLimit {
			limited++
		}
	}
	if limited == 0 {
		t.Fatal("no session-limit answer: the test proves nothing")
	}
}

// TestDailyLimit: the third submission hits the daily cap: the run stops
// with ErrDailyLimit, the two accepted jobs finish, the rest is not sent.
func TestDailyLimit(t *testing.T) {
	w := newWorld(t, archivetest.SPNConfig{Daily: 2})
	urls := w.urls(5)
	got, err := saveAll(t, w.client(t, spn.Options{}), urls)
	if !errors.Is(err, spn.ErrDailyLimit) || !spn.Fatal(err) {
		t.Fatalf("err %v, want ErrDailyLimit", err)
	}
	states := map[string]int{}
	for _, r := range got {
		states[r.State]++
	}
	if states[spn.StateSuccess] != 2 || states[spn.StateError] != 1 || states[spn.StateNotSent] != 2 {
		t.Fatalf("states %v", states)
	}
	if n := len(w.spn.Submissions()); n != 3 {
		t.Fatalf("%d submissions, want 3", n)
	}
}

// TestRefusedAndPaused: a wrong secret is ErrRefused after one request
// (the secret never in the error); a paused host is ErrHostPaused.
func TestRefusedAndPaused(t *testing.T) {
	w := newWorld(t, archivetest.SPNConfig{})
	bad := spn.Credentials{Access: "AKEY", Secret: "wrong-secret"}
	got, err := saveAll(t, w.client(t, spn.Options{Credentials: bad}), w.urls(3))
	if !errors.Is(err, spn.ErrRefused) || strings.Contains(err.Error(), "wrong-secret") {
		t.Fatalf("err %v, want ErrRefused without the secret", err)
	}
	if n := len(w.spn.Requests()); n != 1 || got[w.urls(3)[2]].State != spn.StateNotSent {
		t.Fatalf("%d requests after a refusal, results %v", n, got)
	}
	p := newWorld(t, archivetest.SPNConfig{HostPaused: true})
	if _, err := saveAll(t, p.client(t, spn.Options{}), p.urls(2)); !errors.Is(err, spn.ErrHostPaused) {
		t.Fatalf("err %v, want ErrHostPaused", err)
	}
}

// TestJobErrors: a page that fails to fetch and a URL the API refuses
// fail their own jobs only.
func TestJobErrors(t *testing.T) {
	w := newWorld(t, archivetest.SPNConfig{})
	urls := []string{w.site.URL + "/missing", "http://127.0.0.1:1/elsewhere", w.site.URL + "/p1"}
	got, err := saveAll(t, w.client(t, spn.Options{}), urls)
	if err != nil {
		t.Fatal(err)
	}
	for u, ext := range map[string]string{urls[0]: "error:not-found", urls[1]: "error:blocked-url"} {
		var je *spn.JobError
		if r := got[u]; r.State != spn.StateError || !errors.As(r.Err, &je) || je.Ext != ext {
			t.Errorf("%s: %+v, want %s", u, r, ext)
		}
	}
	if got[urls[2]].State != spn.StateSuccess {
		t.Errorf("%s: %+v", urls[2], got[urls[2]])
	}
}

// TestForeignRedirect: a page that redirects to another host is captured
// there by the archive; the client reports the job failed, not captured.
func TestForeignRedirect(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html>elsewhere</html>")
	}))
	defer other.Close()
	site := httptest.NewServer(http.RedirectHandler(other.URL+"/landing", http.StatusFound))
	defer site.Close()
	arch, err := archivetest.New(nil, archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer arch.Close()
	s, err := archivetest.NewSPN(arch, archivetest.SPNConfig{Access: creds.Access, Secret: creds.Secret,
		Allow: []string{strings.TrimPrefix(site.URL, "http://"), strings.TrimPrefix(other.URL, "http://")}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w := &world{spn: s}
	got, err := saveAll(t, w.client(t, spn.Options{}), []string{site.URL + "/moved"})
	if err != nil {
		t.Fatal(err)
	}
	var je *spn.JobError
	if r := got[site.URL+"/moved"]; r.State != spn.StateError || !errors.As(r.Err, &je) || je.Ext != spn.ExtForeignTarget {
		t.Fatalf("result %+v", r)
	}
}

// TestAboveCap: a rate above the cap the Internet Archive documents (12
// a minute with keys, 4 without) is reported, whatever its unit; a
// loopback stand-in has no cap.
func TestAboveCap(t *testing.T) {
	for _, c := range []struct {
		base  string
		keys  bool
		rate  string
		above bool
	}{
		{"https://web.archive.org", true, "12/min", false},
		{"https://web.archive.org", true, "13/min", true},
		{"https://web.archive.org", true, "1/s", true},
		{"https://web.archive.org", true, "720/h", false},
		{"https://web.archive.org", true, "721/h", true},
		{"https://web.archive.org", false, "4/min", false},
		{"https://web.archive.org", false, "5/min", true},
		{"http://127.0.0.1:9", true, "100/s", false},
	} {
		rate, err := spn.ParseLimit(c.rate)
		if err != nil {
			t.Fatal(err)
		}
		o := spn.Options{Base: c.base, Rate: rate}
		if c.keys {
			o.Credentials = creds
		}
		cl, err := spn.New(o)
		if err != nil {
			t.Fatal(err)
		}
		limit, above := cl.AboveCap()
		want := spn.DefaultRate
		if !c.keys {
			want = spn.DefaultAnonymousRate
		}
		if above != c.above || limit != want {
			t.Errorf("%s %s (keys %v): above %v, cap %v", c.base, c.rate, c.keys, above, limit)
		}
	}
}
