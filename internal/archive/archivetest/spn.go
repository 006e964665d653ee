package archivetest

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SPNConfig tunes an SPN server. Credentials are required; the other
// zero values mean no limit.
type SPNConfig struct {
	// Access and Secret are the key pair accepted in
	// "Authorization: LOW access:secret"; any other answer is 401.
	Access, Secret string
	// Allow are the hosts (host:port, as in URLs) whose pages the server
	// fetches; a submission of any other URL fails with error:blocked-url
	// and a redirect elsewhere is not followed. Tests never reach out.
	Allow []string
	// PerWindow caps the submissions accepted in any Window (the API's
	// per-minute cap): one more is answered 429 with Retry-After. 0 means
	// no cap.
	PerWindow int
	// Window defaults to one minute.
	Window time.Duration
	// RetryAfter is sent with 429, in whole seconds; defaults to 1 s.
	RetryAfter time.Duration
	// Sessions caps the jobs active at once (submitted, and their outcome
	// not yet read by a status poll): one more is answered
	// error:user-session-limit. 0 means no cap.
	Sessions int
	// Daily caps the jobs accepted in all: one more is answered
	// error:too-many-daily-captures. 0 means no cap.
	Daily int
	// HostPaused answers every submission error:host-crawling-paused.
	HostPaused bool
	// PendingPolls is how many status polls of a finished job answer
	// "pending" before its outcome; defaults to 1.
	PendingPolls int
	// IndexDelay is how long after a successful job its capture shows in
	// the archive (the Wayback's index lags its captures); defaults to 0.
	IndexDelay time.Duration
	// JobErrors fails the first N captures (jobs, or requests without
	// keys) whatever the page answers: error:job-failed, as the API
	// reports a capture that went wrong on its side.
	JobErrors int
	// Unindexed makes the first N successful captures never show in the
	// archive: the job (or the answer without keys) says success, the
	// listing never lists them.
	Unindexed int
	// Anonymous says how GET /save/{url} without keys is answered (see the
	// Anonymous… constants); requests with keys are unaffected.
	Anonymous string
}

// How an SPN server answers requests without keys (SPNConfig.Anonymous).
const (
	// AnonymousRefused (the default): 401 "You need to be logged in to
	// use Save Page Now.", as the Internet Archive answers programs since
	// 2025.
	AnonymousRefused = ""
	// AnonymousCapture: the page is captured at once and the 200 answer
	// names the capture in Content-Location (/web/TIMESTAMP/URL), the
	// answer tools without keys relied on.
	AnonymousCapture = "capture"
	// AnonymousJob: the answer is a page watching a job
	// (spn.watchJob("spn2-…")), whose status is polled without keys.
	AnonymousJob = "job"
	// AnonymousAccepted: a 200 page naming no capture; the page is
	// captured all the same.
	AnonymousAccepted = "accepted"
	// AnonymousThrottled: 429 without Retry-After, whatever the rate, as
	// the Internet Archive was seen answering programs in 2026.
	AnonymousThrottled = "throttled"
)

// SPN is a local Save Page Now 2 endpoint that stores what it captures
// in an archive Server: POST /save starts a job that really fetches the
// URL, and on a 200 answer adds the page to the archive (so its CDX API
// and id_ replay serve it); GET /save/status/{id} answers pending, then
// success or error. Create it with NewSPN and Close it when done.
type SPN struct {
	// URL is the base URL, e.g. "http://127.0.0.1:41234".
	URL string

	srv     *httptest.Server
	archive *Server
	cfg     SPNConfig
	fetcher *http.Client

	mu        sync.Mutex
	jobs      map[string]*spnJob
	seq       int
	accepted  []time.Time // acceptance times of every job
	log       []SPNRequest
	failed    int // captures failed for SPNConfig.JobErrors
	unindexed int // captures kept out of the index for SPNConfig.Unindexed
}

// SPNRequest is one logged request to the SPN server.
type SPNRequest struct {
	Request
	// URL is the url= of a submission.
	URL string
	// Answer is the job id answered, the status_ext of an error answer,
	// or the state a status poll answered.
	Answer string
}

// spnJob is one capture job.
type spnJob struct {
	url       string
	done      bool
	answer    map[string]any // the final status answer
	polls     int            // status polls answered after it was done
	delivered bool           // its outcome was read: no longer an active session
}

// NewSPN starts an SPN server that captures into archive.
func NewSPN(archive *Server, cfg SPNConfig) (*SPN, error) {
	if cfg.Access == "" || cfg.Secret == "" || cfg.PerWindow < 0 || cfg.Sessions < 0 || cfg.Daily < 0 || cfg.PendingPolls < 0 ||
		cfg.JobErrors < 0 || cfg.Unindexed < 0 {
		return nil, fmt.Errorf("archivetest: SPN needs credentials and no negative limits")
	}
	if cfg.Window <= 0 {
		cfg.Window = time.Minute
	}
	if cfg.RetryAfter <= 0 {
		cfg.RetryAfter = time.Second
	}
	if cfg.PendingPolls == 0 {
		cfg.PendingPolls = 1
	}
	s := &SPN{archive: archive, cfg: cfg, jobs: map[string]*spnJob{}}
	s.fetcher = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if !slices.Contains(cfg.Allow, req.URL.Host) || len(via) > 5 {
			return fmt.Errorf("redirect to %s not followed", req.URL.Host)
		}
		return nil
	}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.route))
	s.URL = s.srv.URL
	return s, nil
}

// Close shuts the server down.
func (s *SPN) Close() { s.srv.Close() }

// Requests returns a copy of the request log in arrival order.
func (s *SPN) Requests() []SPNRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// Submissions returns the logged capture requests, POST /save with keys
// and GET /save/{url} without (accepted or not), for MaxInWindow.
func (s *SPN) Submissions() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Method == http.MethodPost || anonymousSave(r.Method, r.URI) {
			out = append(out, r.Request)
		}
	}
	return out
}

// anonymousSave reports whether a request is GET /save/{url}.
func anonymousSave(method, uri string) bool {
	return method == http.MethodGet && strings.HasPrefix(uri, "/save/") && !strings.HasPrefix(uri, "/save/status/")
}

// route answers /save and /save/status/{id}, after checking the key.
func (s *SPN) route(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	logged := SPNRequest{Request: Request{Time: at, Method: r.Method, URI: r.RequestURI}}
	code, body := s.answer(r, at, &logged)
	logged.Status = code
	s.mu.Lock()
	s.log = append(s.log, logged)
	s.mu.Unlock()
	if code == http.StatusTooManyRequests && logged.Answer != AnonymousThrottled {
		w.Header().Set("Retry-After", strconv.Itoa(int(s.cfg.RetryAfter/time.Second)))
	}
	if page, ok := body["page"].(string); ok { // an answer without keys: HTML
		if loc, ok := body["location"].(string); ok {
			w.Header().Set("Content-Location", loc)
		}
		if e, ok := body["runtime_error"].(string); ok {
			w.Header().Set("X-Archive-Wayback-Runtime-Error", e)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(code)
		io.WriteString(w, page)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(body)
}

// answer handles one request and says what to answer.
func (s *SPN) answer(r *http.Request, at time.Time, logged *SPNRequest) (int, map[string]any) {
	if r.Header.Get("Authorization") == "" {
		switch {
		case anonymousSave(r.Method, r.RequestURI):
			logged.URL = strings.TrimPrefix(r.RequestURI, "/save/")
			return s.anonymous(logged.URL, at, logged)
		case s.cfg.Anonymous == AnonymousJob && r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/save/status/"):
			return s.status(strings.TrimPrefix(r.URL.Path, "/save/status/"), logged)
		}
	}
	if r.Header.Get("Authorization") != "LOW "+s.cfg.Access+":"+s.cfg.Secret {
		logged.Answer = "unauthorized"
		return http.StatusUnauthorized, map[string]any{"message": "You need to be logged in to use Save Page Now."}
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/save":
		r.ParseForm()
		logged.URL = r.PostForm.Get("url")
		return s.submit(logged.URL, at, logged)
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/save/status/"):
		return s.status(strings.TrimPrefix(r.URL.Path, "/save/status/"), logged)
	}
	return http.StatusNotFound, map[string]any{"message": "not found"}
}

// anonymous answers GET /save/{u} without keys as SPNConfig.Anonymous
// says; the per-window and daily caps and the allowed hosts apply as to
// jobs with keys.
func (s *SPN) anonymous(u string, at time.Time, logged *SPNRequest) (int, map[string]any) {
	page := func(text string) map[string]any {
		return map[string]any{"page": "<html><body>" + text + "</body></html>"}
	}
	switch s.cfg.Anonymous {
	case AnonymousRefused:
		logged.Answer = "unauthorized"
		return http.StatusUnauthorized, page("You need to be logged in to use Save Page Now.")
	case AnonymousThrottled:
		logged.Answer = AnonymousThrottled
		return http.StatusTooManyRequests, page("Too Many Requests")
	}
	s.mu.Lock()
	if s.cfg.PerWindow > 0 && s.inWindow(at) >= s.cfg.PerWindow {
		s.mu.Unlock()
		logged.Answer = "429"
		return http.StatusTooManyRequests, page("Too Many Requests")
	}
	if s.cfg.Daily > 0 && len(s.accepted) >= s.cfg.Daily {
		s.mu.Unlock()
		logged.Answer = "error:too-many-daily-captures"
		return http.StatusOK, page(fmt.Sprintf("You have reached your daily not-logged-in captures limit of %d webpages.", s.cfg.Daily))
	}
	if pu, err := url.Parse(u); err != nil || !slices.Contains(s.cfg.Allow, pu.Host) {
		s.mu.Unlock()
		logged.Answer = "error:blocked-url"
		p := page("This URL is not allowed in this test.")
		p["runtime_error"] = "blocked-url: not allowed in this test"
		return http.StatusOK, p
	}
	s.seq++
	id := fmt.Sprintf("spn2-%040x", s.seq)
	s.accepted = append(s.accepted, at)
	logged.Answer = id
	j := &spnJob{url: u}
	if s.cfg.Anonymous == AnonymousJob {
		s.jobs[id] = j
	}
	s.mu.Unlock()
	switch s.cfg.Anonymous {
	case AnonymousJob:
		go s.capture(id, j)
		return http.StatusOK, page(`<script>spn.watchJob("` + id + `", "/_static/", 6000);</script>`)
	case AnonymousAccepted:
		go s.fetchStore(id, u)
		return http.StatusOK, page("Saving page now…")
	}
	ans := s.fetchStore(id, u)
	if ans["status"] != "success" {
		p := page("Capture failed.")
		p["runtime_error"] = fmt.Sprint(ans["status_ext"], ": ", ans["message"])
		return http.StatusOK, p
	}
	p := page("Saved.")
	p["location"] = fmt.Sprintf("/web/%s/%s", ans["timestamp"], ans["original_url"])
	return http.StatusOK, p
}

// spnError is an error answer.
func spnError(logged *SPNRequest, ext, msg string) (int, map[string]any) {
	logged.Answer = ext
	return http.StatusOK, map[string]any{"status": "error", "status_ext": ext, "message": msg}
}

// submit starts a job for u unless a limit refuses it.
func (s *SPN) submit(u string, at time.Time, logged *SPNRequest) (int, map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.PerWindow > 0 && s.inWindow(at) >= s.cfg.PerWindow {
		logged.Answer = "429"
		return http.StatusTooManyRequests, map[string]any{"message": "Too Many Requests"}
	}
	if s.cfg.HostPaused {
		return spnError(logged, "error:host-crawling-paused", "Crawling of this host is paused.")
	}
	if s.cfg.Daily > 0 && len(s.accepted) >= s.cfg.Daily {
		return spnError(logged, "error:too-many-daily-captures", fmt.Sprintf("You cannot make more than %d captures per day.", s.cfg.Daily))
	}
	if s.cfg.Sessions > 0 && s.active() >= s.cfg.Sessions {
		return spnError(logged, "error:user-session-limit", "You have already reached the limit of active sessions.")
	}
	pu, err := url.Parse(u)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") {
		return spnError(logged, "error:invalid-url-syntax", "Invalid URL syntax.")
	}
	if !slices.Contains(s.cfg.Allow, pu.Host) {
		return spnError(logged, "error:blocked-url", "This URL is not allowed in this test.")
	}
	s.seq++
	id := fmt.Sprintf("spn2-%040x", s.seq)
	j := &spnJob{url: u}
	s.jobs[id] = j
	s.accepted = append(s.accepted, at)
	logged.Answer = id
	go s.capture(id, j)
	return http.StatusOK, map[string]any{"url": u, "job_id": id}
}

// inWindow counts the jobs accepted within the window before at; the
// caller holds mu.
func (s *SPN) inWindow(at time.Time) int {
	n := 0
	for _, t := range s.accepted {
		if at.Sub(t) < s.cfg.Window {
			n++
		}
	}
	return n
}

// active counts the jobs whose outcome was not read yet; the caller
// holds mu.
func (s *SPN) active() int {
	n := 0
	for _, j := range s.jobs {
		if !j.delivered {
			n++
		}
	}
	return n
}

// capture fetches a job's URL and stores a 200 answer in the archive.
func (s *SPN) capture(id string, j *spnJob) {
	ans := s.fetchStore(id, j.url)
	s.mu.Lock()
	j.done, j.answer = true, ans
	s.mu.Unlock()
}

// fetchStore fetches u, stores a 200 answer in the archive and returns
// the job's final status answer (JobErrors fail the first captures
// whatever the page answers).
func (s *SPN) fetchStore(id, u string) map[string]any {
	ans := map[string]any{"job_id": id, "status": "error"}
	s.mu.Lock()
	fail := s.failed < s.cfg.JobErrors
	if fail {
		s.failed++
	}
	s.mu.Unlock()
	if fail {
		ans["status_ext"], ans["message"] = "error:job-failed", "Capture failed (a fault of the test server)."
		return ans
	}
	resp, err := s.fetcher.Get(u)
	if err != nil {
		ans["status_ext"], ans["message"] = "error:cannot-fetch", "Cannot fetch the target URL: "+err.Error()
		return ans
	}
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	resp.Body.Close()
	switch {
	case rerr != nil:
		ans["status_ext"], ans["message"] = "error:cannot-fetch", rerr.Error()
	case resp.StatusCode == http.StatusNotFound:
		ans["status_ext"], ans["message"] = "error:not-found", "The server cannot find the requested resource."
	case resp.StatusCode != http.StatusOK:
		ans["status_ext"], ans["message"] = "error:bad-gateway", fmt.Sprintf("The target answered HTTP %d.", resp.StatusCode)
	default:
		ans = s.store(id, resp, body)
	}
	return ans
}

// store adds a fetched page to the archive and returns the success answer.
func (s *SPN) store(id string, resp *http.Response, body []byte) map[string]any {
	final := resp.Request.URL.String()
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	now := time.Now().UTC()
	c := Capture{URL: final, Time: now, Body: body, MIME: mt}
	s.mu.Lock()
	lost := s.unindexed < s.cfg.Unindexed
	if lost {
		s.unindexed++
	}
	s.mu.Unlock()
	switch {
	case lost: // the job succeeds; the listing never shows it
	case s.cfg.IndexDelay > 0:
		time.AfterFunc(s.cfg.IndexDelay, func() { s.archive.AddCapture(c) })
	default:
		if err := s.archive.AddCapture(c); err != nil {
			return map[string]any{"job_id": id, "status": "error", "status_ext": "error:internal-server-error", "message": err.Error()}
		}
	}
	return map[string]any{"job_id": id, "status": "success", "original_url": final,
		"timestamp": now.Format("20060102150405"), "http_status": resp.StatusCode, "resources": []string{final}}
}

// status answers a status poll: pending until the job is done and
// PendingPolls polls have passed, then its outcome. Unknown ids are
// pending, as on the Internet Archive.
func (s *SPN) status(id string, logged *SPNRequest) (int, map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.jobs[id]
	if j == nil || !j.done || j.polls < s.cfg.PendingPolls {
		if j != nil && j.done {
			j.polls++
		}
		logged.Answer = "pending"
		return http.StatusOK, map[string]any{"job_id": id, "status": "pending", "resources": []string{}}
	}
	j.delivered = true
	logged.Answer, _ = j.answer["status"].(string)
	return http.StatusOK, j.answer
}
