package archivetest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// PywbConfig makes a Server answer as one pywb collection instead of the
// Wayback Machine, following pywb's documented CDX server API
// (docs/manual/cdxserver_api.rst in pywb) rather than the Internet
// Archive's:
//
//   - the CDX API at "/" + Coll + CDXEndpoint: url with matchType exact
//     (the default), prefix, host or domain and the "…/*" and "*.…"
//     wildcards; from and to; output cdxj (the default: "urlkey
//     timestamp {json}"), json (NDJSON, one object per line) or text
//     (space-delimited); fields= or fl= (canonical names only, as pywb
//     prints them: url, mime, status, not original, mimetype,
//     statuscode); filter=[!][=|~]field:expr with pywb's meanings
//     (contains, exact, regular expression matched at the beginning of
//     the field, negated) and its field aliases (original, mimetype,
//     statuscode…); limit, silently DefaultLimit when not sent;
//     sort=reverse and sort=closest&closest=TS; resolveRevisits=true. No
//     resume keys, no collapse: those parameters are ignored, as pywb
//     ignores them. An empty result is an empty 200 answer.
//   - replay at /{Coll}/{timestamp}{modifier}/{original}: id_ serves the
//     stored payload exactly (a revisit's original payload), other
//     modifiers a rewritten page with a "<!-- WB Insert -->" banner.
//
// The Wayback paths (/cdx/search/cdx, /web/, /timemap/) answer 404.
type PywbConfig struct {
	// Coll is the collection's name; defaults to "coll".
	Coll string
	// CDXEndpoint follows "/" + Coll in the CDX API's path, as pywb's
	// cdx_api_endpoint setting: "/cdx", "-cdx", "-index"…; defaults to
	// "/cdx".
	CDXEndpoint string
	// DefaultLimit is the number of rows an answer is cut to when the
	// query sends no limit=, without saying so; defaults to 100000, as
	// pywb's.
	DefaultLimit int
	// Output, if set, is the format of every answer whatever output=
	// asks ("cdxj", "json" or "text"), as CDXJ servers that know one
	// format answer; defaults to what the query asks.
	Output string
}

// PywbDefaultLimit is pywb's limit on the rows of an answer to a query
// that sends none.
const PywbDefaultLimit = 100000

// Banner comments pywb puts around what it inserts into rewritten pages.
const (
	PywbInsertBegin = "<!-- WB Insert -->"
	PywbInsertEnd   = "<!-- End WB Insert -->"
)

// withDefaults fills p's defaults.
func (p PywbConfig) withDefaults() (PywbConfig, error) {
	if p.DefaultLimit < 0 || strings.ContainsAny(p.Coll, "/?#") {
		return p, fmt.Errorf("archivetest: negative pywb default limit or bad collection %q", p.Coll)
	}
	switch p.Output {
	case "", "cdxj", "json", "text":
	default:
		return p, fmt.Errorf("archivetest: unknown pywb output %q", p.Output)
	}
	if p.Coll == "" {
		p.Coll = "coll"
	}
	if p.CDXEndpoint == "" {
		p.CDXEndpoint = "/cdx"
	}
	if p.DefaultLimit == 0 {
		p.DefaultLimit = PywbDefaultLimit
	}
	return p, nil
}

// CDXEndpoint is the URL of the server's CDX API: the Wayback's
// {URL}/cdx/search/cdx, or a pywb collection's.
func (s *Server) CDXEndpoint() string {
	if p := s.cfg.Pywb; p != nil {
		return s.URL + "/" + p.Coll + p.CDXEndpoint
	}
	return s.URL + "/cdx/search/cdx"
}

// ReplayPrefix is what a timestamp, a modifier and an original URL follow
// in the server's replay URLs: {URL}/web/ or {URL}/{coll}/.
func (s *Server) ReplayPrefix() string {
	if p := s.cfg.Pywb; p != nil {
		return s.URL + "/" + p.Coll + "/"
	}
	return s.URL + "/web/"
}

// routePywb dispatches a request to a pywb collection.
func (s *Server) routePywb(w http.ResponseWriter, r *http.Request) {
	p := s.cfg.Pywb
	coll := "/" + p.Coll + "/"
	switch {
	case r.URL.Path == "/"+p.Coll+p.CDXEndpoint:
		s.servePywbCDX(w, r)
	case strings.HasPrefix(r.RequestURI, coll):
		s.servePywbReplay(w, r, r.RequestURI[len(coll):])
	default:
		http.NotFound(w, r)
	}
}

// pywbReplayPath matches "{timestamp}{modifier}/" after the collection.
var pywbReplayPath = regexp.MustCompile(`^([0-9]{1,14})([a-z]{2}_)?/`)

// servePywbReplay answers /{coll}/{timestamp}{modifier}/{original}.
func (s *Server) servePywbReplay(w http.ResponseWriter, r *http.Request, rest string) {
	m := pywbReplayPath.FindStringSubmatch(rest)
	if m == nil {
		http.NotFound(w, r)
		return
	}
	s.replay(w, rest[len(m[0]):], m[1], m[2], replayStyle{prefix: s.ReplayPrefix(), begin: PywbInsertBegin, end: PywbInsertEnd})
}

// pywbFields are the fields of a pywb index row, in the order pywb
// prints them.
var pywbFields = []string{"urlkey", "timestamp", "url", "mime", "status", "digest", "length", "offset", "filename"}

// pywbAliases are the other names pywb's filters accept for a field
// (CDXObject.CDX_ALT_FIELDS; "s" is length there, not status).
var pywbAliases = map[string]string{
	"u": "url", "original": "url", "statuscode": "status", "mimetype": "mime", "m": "mime",
	"l": "length", "s": "length", "o": "offset", "d": "digest", "t": "timestamp", "k": "urlkey", "f": "filename",
}

// pywbField returns field name of r as a pywb index holds it, and
// whether the row has it.
func (r row) pywbField(name string) (string, bool) {
	switch name {
	case "urlkey":
		return r.urlkey, true
	case "timestamp":
		return r.ts, true
	case "url":
		return r.URL, true
	case "mime":
		return r.mime, true
	case "status":
		return r.status, true
	case "digest":
		return r.Digest, true
	case "length":
		return strconv.FormatInt(r.length, 10), true
	case "offset":
		return strconv.FormatInt(r.offset, 10), true
	case "filename":
		return r.file, true
	}
	return "", false
}

// pywbFilter is one filter=[!][=|~]field:expr parameter.
type pywbFilter struct {
	field  string // "" applies to the whole cdxj line
	invert bool
	mode   byte // 0 contains, '=' exact, '~' regular expression at the beginning
	expr   string
	re     *regexp.Regexp
}

// parsePywbFilter reads a filter as pywb's CDXFilter does: modifiers
// first, then the field up to the first ':' (none: the whole line).
func parsePywbFilter(f string) (pywbFilter, error) {
	var pf pywbFilter
	pf.invert = strings.HasPrefix(f, "!")
	f = strings.TrimPrefix(f, "!")
	if f != "" && (f[0] == '=' || f[0] == '~') {
		pf.mode, f = f[0], f[1:]
	}
	pf.expr = f
	if name, expr, ok := strings.Cut(f, ":"); ok {
		pf.field, pf.expr = name, expr
		if alias, ok := pywbAliases[name]; ok {
			pf.field = alias
		}
	}
	if pf.mode == '~' {
		re, err := regexp.Compile(`^(?:` + pf.expr + `)`)
		if err != nil {
			return pf, fmt.Errorf("bad filter regex %q: %v", pf.expr, err)
		}
		pf.re = re
	}
	return pf, nil
}

// match reports whether r passes the filter.
func (pf pywbFilter) match(r row) bool {
	v, _ := r.pywbField(pf.field)
	if pf.field == "" {
		v = r.cdxj(nil)
	}
	var ok bool
	switch pf.mode {
	case '=':
		ok = v == pf.expr
	case '~':
		ok = pf.re.MatchString(v)
	default:
		ok = strings.Contains(v, pf.expr)
	}
	return ok != pf.invert
}

// pywbQuery is a parsed pywb CDX request.
type pywbQuery struct {
	match    matcher
	output   string
	fields   []string // nil: all
	filters  []pywbFilter
	from, to string
	limit    int
	sort     string // "", "reverse" or "closest"
	closest  time.Time
	resolve  bool
}

// last returns the last value of a parameter, as pywb's query parsing
// keeps it.
func last(q url.Values, name string) string {
	if v := q[name]; len(v) > 0 {
		return v[len(v)-1]
	}
	return ""
}

// parsePywbQuery validates the parameters of a pywb CDX request.
func (s *Server) parsePywbQuery(q url.Values) (*pywbQuery, error) {
	if last(q, "url") == "" {
		return nil, fmt.Errorf(`the "url" param is required`)
	}
	pq := &pywbQuery{match: newMatcher(last(q, "url"), last(q, "matchType")), output: last(q, "output"),
		limit: s.cfg.Pywb.DefaultLimit, resolve: last(q, "resolveRevisits") == "true"}
	switch pq.output {
	case "":
		pq.output = "cdxj"
	case "cdxj", "json", "text":
	default:
		return nil, fmt.Errorf("output=%s not supported", pq.output)
	}
	if s.cfg.Pywb.Output != "" {
		pq.output = s.cfg.Pywb.Output
	}
	fl := last(q, "fields")
	if fl == "" {
		fl = last(q, "fl")
	}
	if fl != "" {
		pq.fields = strings.Split(fl, ",")
	}
	for _, f := range q["filter"] {
		pf, err := parsePywbFilter(f)
		if err != nil {
			return nil, err
		}
		pq.filters = append(pq.filters, pf)
	}
	var rng cdxQuery
	if err := rng.parseRange(last(q, "from"), last(q, "to")); err != nil {
		return nil, err
	}
	pq.from, pq.to = rng.from, rng.to
	if v := last(q, "limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad limit %q", v)
		}
		pq.limit = n
	}
	return pq, pq.parseSort(last(q, "sort"), last(q, "closest"))
}

// parseSort reads sort= and closest=.
func (pq *pywbQuery) parseSort(sort, closest string) error {
	if closest != "" {
		t, err := time.Parse("20060102150405", closest+"00000101000000"[min(len(closest), 14):])
		if err != nil {
			return fmt.Errorf("bad closest %q", closest)
		}
		pq.sort, pq.closest = "closest", t
		return nil
	}
	if sort == "reverse" {
		pq.sort = "reverse"
	}
	return nil
}

// run selects the answer's rows as pywb's cdx_load does: matching URLs
// in index order, revisits resolved if asked, filters, the time range,
// then the sort and the limit.
func (pq *pywbQuery) run(all []row) []row {
	var out []row
	originals := map[string]row{}
	for _, r := range all {
		if !pq.match.match(r.URL) {
			continue
		}
		if pq.resolve {
			r = resolveRevisit(r, originals)
		}
		if r.ts < pq.from || r.ts > pq.to || !pq.pass(r) {
			continue
		}
		out = append(out, r)
	}
	switch pq.sort {
	case "reverse":
		slices.Reverse(out)
	case "closest":
		slices.SortStableFunc(out, func(a, b row) int {
			return cmp.Compare(a.Time.Sub(pq.closest).Abs(), b.Time.Sub(pq.closest).Abs())
		})
	}
	return out[:min(len(out), pq.limit)]
}

// pass reports whether r passes every filter.
func (pq *pywbQuery) pass(r row) bool {
	for _, f := range pq.filters {
		if !f.match(r) {
			return false
		}
	}
	return true
}

// resolveRevisit gives a revisit row the mime and status of the first
// earlier row in the answer with its digest, as resolveRevisits=true
// does; originals collects those rows.
func resolveRevisit(r row, originals map[string]row) row {
	orig, ok := originals[r.Digest]
	switch {
	case !r.Revisit && !ok:
		originals[r.Digest] = r
	case r.Revisit && ok:
		r.mime, r.status = orig.mime, orig.status
	}
	return r
}

// servePywbCDX answers the collection's CDX API.
func (s *Server) servePywbCDX(w http.ResponseWriter, r *http.Request) {
	pq, err := s.parsePywbQuery(r.URL.Query())
	if err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"message": err.Error()})
		return
	}
	rows := pq.run(s.rows)
	switch pq.output {
	case "json":
		w.Header().Set("Content-Type", "text/x-ndjson")
		for _, x := range rows {
			fmt.Fprintln(w, pyJSON(x.pywbObject(pq.fields)))
		}
	case "text":
		w.Header().Set("Content-Type", "text/plain")
		for _, x := range rows {
			fmt.Fprintln(w, x.pywbText(pq.fields))
		}
	default:
		w.Header().Set("Content-Type", "text/x-cdxj")
		for _, x := range rows {
			fmt.Fprintln(w, x.cdxj(pq.fields))
		}
	}
}

// pywbObject returns the named fields of r that it has, in order (all
// when fields is nil), as pywb's to_json leaves out the ones it lacks.
func (r row) pywbObject(fields []string) [][2]string {
	if fields == nil {
		fields = pywbFields
	}
	var out [][2]string
	for _, f := range fields {
		if v, ok := r.pywbField(f); ok {
			out = append(out, [2]string{f, v})
		}
	}
	return out
}

// pywbText is r as a text line: the named fields, "-" for those it
// lacks, or its cdxj line when fields is nil (pywb prints an index
// line as it read it).
func (r row) pywbText(fields []string) string {
	if fields == nil {
		return r.cdxj(nil)
	}
	vals := make([]string, len(fields))
	for i, f := range fields {
		v, ok := r.pywbField(f)
		if !ok {
			v = "-"
		}
		vals[i] = v
	}
	return strings.Join(vals, " ")
}

// cdxj is r as a cdxj line: urlkey, timestamp and a JSON object of the
// other named fields (all when fields is nil).
func (r row) cdxj(fields []string) string {
	var rest [][2]string
	for _, kv := range r.pywbObject(fields) {
		if kv[0] != "urlkey" && kv[0] != "timestamp" {
			rest = append(rest, kv)
		}
	}
	return r.urlkey + " " + r.ts + " " + pyJSON(rest)
}

// pyJSON writes an object as Python's json.dumps does: keys in order,
// ", " and ": " between them.
func pyJSON(kvs [][2]string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, kv := range kvs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pyString(kv[0]))
		b.WriteString(": ")
		b.WriteString(pyString(kv[1]))
	}
	b.WriteByte('}')
	return b.String()
}

// pyString is s as a JSON string, without the HTML escapes Go adds and
// Python does not.
func pyString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
