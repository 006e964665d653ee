package archivetest

import (
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"
)

// Capture is one stored capture the server answers for.
type Capture struct {
	URL  string    // original URL, e.g. "http://example.org/a"
	Time time.Time // capture time, second precision
	// Status is the HTTP status of the capture; 0 defaults to 200 and a
	// negative value is reported as "-" (unknown) by the CDX API.
	Status int
	MIME   string // defaults to "text/html"
	Body   []byte // the original payload, returned exactly by id_ replay
	// Digest overrides the reported digest; defaults to the base32 SHA-1
	// of Body, as the Internet Archive reports it.
	Digest string
	// Crawl is the Common Crawl collection holding the capture; defaults
	// to DefaultCrawl.
	Crawl string
	// Revisit makes the capture a WARC revisit record, as crawlers write
	// for a payload they fetched before: the CDX APIs list it with mime
	// "warc/revisit", status "-" (unless Status is set) and the length of
	// a record without payload, and replay serves the payload of the
	// latest earlier non-revisit capture of the URL with the same digest
	// (404 if there is none). Body is that payload, for the digest.
	Revisit bool
}

// RevisitLength is the record length the CDX APIs list for a revisit
// capture: headers only, no payload.
const RevisitLength = 420

// DefaultCrawl is the Common Crawl collection of captures without Crawl.
const DefaultCrawl = "CC-MAIN-2024-10"

// Config tunes a Server. The zero value is ready to use.
type Config struct {
	// Faults injects errors; defaults to none.
	Faults Faults
	// MaxRows caps the rows of one CDX answer, as IA caps them at 150,000;
	// defaults to 150000.
	MaxRows int
	// TimeMapPageSize is the number of mementos per TimeMap page; 0 serves
	// each TimeMap as one page.
	TimeMapPageSize int
	// CCPageSize is the number of index lines per Common Crawl page;
	// defaults to 5.
	CCPageSize int
	// Pywb, if set, makes the server a pywb collection instead of the
	// Wayback Machine (see PywbConfig); defaults to nil.
	Pywb *PywbConfig
	// Before, if set, is called as each request arrives, before it is
	// logged and answered: a test may block in it to hold a client at a
	// known point. Defaults to none.
	Before func(*http.Request)
}

// Server is a local archive. Create it with New and Close it when done.
type Server struct {
	// URL is the base URL, e.g. "http://127.0.0.1:41234".
	URL string

	srv   *httptest.Server
	cfg   Config
	rows  []row // sorted by urlkey, then time
	warcs map[string][]byte
	// warcsStale says that warcs and the rows' WARC locations are not
	// built for the rows yet: they are built when a request needs them
	// (gzipping every capture costs more than many tests ever ask).
	warcsStale bool
	// rowsMu guards rows, warcs and warcsStale: AddCapture writes,
	// requests read.
	rowsMu sync.RWMutex

	mu     sync.Mutex
	faults *faultState
	log    []Request
}

// row is one stored capture with its derived CDX fields.
type row struct {
	Capture
	urlkey, ts string
	mime       string // as the CDX APIs list it: "warc/revisit" for a revisit
	status     string
	length     int64
	file       string // Common Crawl WARC file
	offset     int64  // record offset in file
	recLen     int64  // compressed record length
}

// New starts a Server holding caps.
func New(caps []Capture, cfg Config) (*Server, error) {
	if cfg.MaxRows < 0 || cfg.TimeMapPageSize < 0 || cfg.CCPageSize < 0 {
		return nil, fmt.Errorf("archivetest: negative page size or row cap")
	}
	if cfg.MaxRows == 0 {
		cfg.MaxRows = 150000
	}
	if cfg.CCPageSize == 0 {
		cfg.CCPageSize = 5
	}
	if cfg.Pywb != nil {
		p, err := cfg.Pywb.withDefaults()
		if err != nil {
			return nil, err
		}
		cfg.Pywb = &p
	}
	fs, err := newFaultState(cfg.Faults)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, faults: fs}
	for i, c := range caps {
		if c.URL == "" || c.Time.IsZero() {
			return nil, fmt.Errorf("archivetest: capture %d lacks URL or time", i)
		}
		s.rows = append(s.rows, newRow(c))
	}
	s.sortRows()
	s.warcsStale = true
	s.srv = httptest.NewServer(s.middleware(http.HandlerFunc(s.route)))
	s.URL = s.srv.URL
	return s, nil
}

// sortRows orders rows by urlkey, then time.
func (s *Server) sortRows() {
	slices.SortStableFunc(s.rows, func(a, b row) int {
		return strings.Compare(a.urlkey+" "+a.ts, b.urlkey+" "+b.ts)
	})
}

// AddCapture stores one more capture, as a crawl or a Save Page Now job
// would: the CDX API, replay, TimeMaps and the Common Crawl index answer
// for it from the next request on.
func (s *Server) AddCapture(c Capture) error {
	if c.URL == "" || c.Time.IsZero() {
		return fmt.Errorf("archivetest: capture lacks URL or time")
	}
	s.rowsMu.Lock()
	defer s.rowsMu.Unlock()
	s.rows = append(s.rows, newRow(c))
	s.sortRows()
	s.warcsStale = true
	return nil
}

// needsWARCs reports whether answering a request for path needs the
// WARC files and the rows' places in them: Common Crawl's index and data,
// and every pywb CDX answer (its rows name file and offset).
func (s *Server) needsWARCs(path string) bool {
	return s.cfg.Pywb != nil || strings.HasSuffix(path, "-index") || strings.HasPrefix(path, "/crawl-data/")
}

// buildStaleWARCs builds the WARC files if the rows changed since they
// were last built.
func (s *Server) buildStaleWARCs() {
	s.rowsMu.Lock()
	defer s.rowsMu.Unlock()
	if s.warcsStale {
		s.buildWARCs()
		s.warcsStale = false
	}
}

// newRow fills a capture's defaults and derived fields.
func newRow(c Capture) row {
	unknown := c.Status < 0 || c.Status == 0 && c.Revisit
	if c.Status == 0 {
		c.Status = 200
	}
	if c.MIME == "" {
		c.MIME = "text/html"
	}
	if c.Digest == "" {
		c.Digest = Digest(c.Body)
	}
	if c.Crawl == "" {
		c.Crawl = DefaultCrawl
	}
	c.Time = c.Time.UTC().Truncate(time.Second)
	r := row{Capture: c, urlkey: surt(c.URL), ts: c.Time.Format("20060102150405"), length: int64(len(c.Body)), mime: c.MIME}
	r.status = fmt.Sprint(c.Status)
	if unknown {
		r.status = "-"
	}
	if c.Revisit {
		r.mime, r.length = "warc/revisit", RevisitLength
	}
	return r
}

// Digest returns the Internet Archive's digest of a payload: the base32
// SHA-1, as CDX answers report it.
func Digest(body []byte) string {
	sum := sha1.Sum(body)
	return base32.StdEncoding.EncodeToString(sum[:])
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// Client returns an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// route dispatches a request by path prefix. It does not use ServeMux,
// which would clean the "//" of embedded original URLs.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	if s.needsWARCs(r.URL.Path) {
		s.buildStaleWARCs()
	}
	s.rowsMu.RLock()
	defer s.rowsMu.RUnlock()
	if s.cfg.Pywb != nil {
		s.routePywb(w, r)
		return
	}
	p := r.URL.Path
	switch {
	case p == "/cdx/search/cdx":
		s.serveCDX(w, r)
	case strings.HasPrefix(p, "/web/"):
		s.serveReplay(w, r)
	case strings.HasPrefix(p, "/timemap/"):
		s.serveTimeMap(w, r)
	case p == "/collinfo.json":
		s.serveCollInfo(w, r)
	case strings.HasSuffix(p, "-index"):
		s.serveCCIndex(w, r)
	case strings.HasPrefix(p, "/crawl-data/"):
		s.serveWARC(w, r)
	default:
		http.NotFound(w, r)
	}
}
