package archivetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// cdxDefaultFields are the fields of an answer without fl=.
var cdxDefaultFields = []string{"urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length"}

// field returns the CDX field name of r, and whether name is known.
func (r row) field(name string) (string, bool) {
	switch name {
	case "urlkey":
		return r.urlkey, true
	case "timestamp":
		return r.ts, true
	case "original":
		return r.URL, true
	case "mimetype":
		return r.mime, true
	case "statuscode":
		return r.status, true
	case "digest":
		return r.Digest, true
	case "length":
		return strconv.FormatInt(r.length, 10), true
	}
	return "", false
}

// cdxFilter is one filter=[!]field:regex parameter.
type cdxFilter struct {
	field  string
	negate bool
	re     *regexp.Regexp
}

// cdxQuery is a parsed CDX request.
type cdxQuery struct {
	match         matcher
	fields        []string
	filters       []cdxFilter
	collapse      string
	collapseN     int // 0: whole field
	from, to      string
	limit         int
	showResumeKey bool
	start         int // index into the matching rows to start at
	json          bool
}

// parseCDXQuery validates the parameters of a CDX request.
func (s *Server) parseCDXQuery(q url.Values) (*cdxQuery, error) {
	if q.Get("url") == "" {
		return nil, fmt.Errorf("missing url")
	}
	c := &cdxQuery{match: newMatcher(q.Get("url"), q.Get("matchType")), fields: cdxDefaultFields,
		json: q.Get("output") == "json", showResumeKey: q.Get("showResumeKey") == "true", limit: s.cfg.MaxRows}
	if fl := q.Get("fl"); fl != "" {
		c.fields = strings.Split(fl, ",")
	}
	for _, f := range c.fields {
		if _, ok := (row{}).field(f); !ok {
			return nil, fmt.Errorf("unknown field %q", f)
		}
	}
	if err := c.parseFilters(q["filter"]); err != nil {
		return nil, err
	}
	if err := c.parseCollapse(q.Get("collapse")); err != nil {
		return nil, err
	}
	if err := c.parseRange(q.Get("from"), q.Get("to")); err != nil {
		return nil, err
	}
	if err := c.parseLimit(q.Get("limit"), s.cfg.MaxRows); err != nil {
		return nil, err
	}
	return c, c.parseResumeKey(q.Get("resumeKey"))
}

// parseFilters compiles the filter parameters (regexes match whole fields).
func (c *cdxQuery) parseFilters(fs []string) error {
	for _, f := range fs {
		neg := strings.HasPrefix(f, "!")
		name, expr, ok := strings.Cut(strings.TrimPrefix(f, "!"), ":")
		if _, known := (row{}).field(name); !ok || !known {
			return fmt.Errorf("bad filter %q", f)
		}
		re, err := regexp.Compile("^(?:" + expr + ")$")
		if err != nil {
			return fmt.Errorf("bad filter %q: %v", f, err)
		}
		c.filters = append(c.filters, cdxFilter{field: name, negate: neg, re: re})
	}
	return nil
}

// parseCollapse reads collapse=field[:N].
func (c *cdxQuery) parseCollapse(v string) error {
	if v == "" {
		return nil
	}
	name, n, hasN := strings.Cut(v, ":")
	if _, ok := (row{}).field(name); !ok {
		return fmt.Errorf("bad collapse %q", v)
	}
	c.collapse = name
	if hasN {
		k, err := strconv.Atoi(n)
		if err != nil || k <= 0 {
			return fmt.Errorf("bad collapse %q", v)
		}
		c.collapseN = k
	}
	return nil
}

// parseRange reads from/to timestamp prefixes: from pads low, to pads high.
func (c *cdxQuery) parseRange(from, to string) error {
	for _, v := range []string{from, to} {
		if len(v) > 14 || strings.Trim(v, "0123456789") != "" {
			return fmt.Errorf("bad timestamp %q", v)
		}
	}
	c.from = from + "00000000000000"[len(from):]
	c.to = to + "99999999999999"[len(to):]
	return nil
}

// parseLimit reads limit=, capped at max.
func (c *cdxQuery) parseLimit(v string, max int) error {
	if v == "" {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return fmt.Errorf("bad limit %q", v)
	}
	c.limit = min(n, max)
	return nil
}

// parseResumeKey reads the opaque resume key this server hands out:
// "urlkey timestamp index" of the next row to scan.
func (c *cdxQuery) parseResumeKey(v string) error {
	if v == "" {
		return nil
	}
	i := strings.LastIndexByte(v, ' ')
	n, err := strconv.Atoi(v[i+1:])
	if i < 0 || err != nil || n < 0 {
		return fmt.Errorf("bad resumeKey %q", v)
	}
	c.start = n
	return nil
}

// keep reports whether r passes the time range and filters.
func (c *cdxQuery) keep(r row) bool {
	if r.ts < c.from || r.ts > c.to {
		return false
	}
	for _, f := range c.filters {
		v, _ := r.field(f.field)
		if f.re.MatchString(v) == f.negate {
			return false
		}
	}
	return true
}

// collapseKey is the value adjacent rows are collapsed on.
func (c *cdxQuery) collapseKey(r row) string {
	v, _ := r.field(c.collapse)
	if c.collapseN > 0 && len(v) > c.collapseN {
		v = v[:c.collapseN]
	}
	return v
}

// run selects one page of rows and the resume key for the next page ("" if
// this is the last one). Collapsing compares each row with the previous
// kept row of the same page only, so a paged listing can differ from an
// unpaged one, as on IA.
func (c *cdxQuery) run(all []row) (out []row, resume string) {
	var matching []row
	for _, r := range all {
		if c.match.match(r.URL) {
			matching = append(matching, r)
		}
	}
	last := ""
	for i := c.start; i < len(matching); i++ {
		if len(out) == c.limit {
			return out, fmt.Sprintf("%s %s %d", matching[i].urlkey, matching[i].ts, i)
		}
		r := matching[i]
		if !c.keep(r) {
			continue
		}
		if c.collapse != "" && len(out) > 0 && c.collapseKey(r) == last {
			continue
		}
		last = c.collapseKey(r)
		out = append(out, r)
	}
	return out, ""
}

// serveCDX answers /cdx/search/cdx.
func (s *Server) serveCDX(w http.ResponseWriter, r *http.Request) {
	q, err := s.parseCDXQuery(r.URL.Query())
	if err != nil {
		http.Error(w, "org.archive.wayback.exception.BadQueryException: "+err.Error(), http.StatusBadRequest)
		return
	}
	rows, resume := q.run(s.rows)
	if !q.showResumeKey {
		resume = ""
	}
	if q.json {
		w.Header().Set("Content-Type", "application/json")
		w.Write(cdxJSON(rows, q.fields, resume))
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	for _, r := range rows {
		fmt.Fprintln(w, strings.Join(values(r, q.fields), " "))
	}
	if resume != "" {
		fmt.Fprintf(w, "\n%s\n", url.QueryEscape(resume))
	}
}

// values returns the requested fields of r.
func values(r row, fields []string) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i], _ = r.field(f)
	}
	return out
}

// cdxJSON renders rows like IA: "[]" when empty, else a header row, one
// row per capture, and optionally an empty row and the resume key.
func cdxJSON(rows []row, fields []string, resume string) []byte {
	if len(rows) == 0 && resume == "" {
		return []byte("[]\n")
	}
	all := [][]string{fields}
	for _, r := range rows {
		all = append(all, values(r, fields))
	}
	if resume != "" {
		all = append(all, []string{}, []string{resume})
	}
	return jsonRows(all)
}

// jsonRows writes rows as the Wayback CDX server does: one JSON array,
// a row per line.
func jsonRows[T any](rows []T) []byte {
	var b bytes.Buffer
	b.WriteString("[")
	for i, r := range rows {
		if i > 0 {
			b.WriteString(",\n")
		}
		j, _ := json.Marshal(r)
		b.Write(j)
	}
	b.WriteString("]\n")
	return b.Bytes()
}
