package archive

import (
	"mime"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// cdxFieldList is the fl= parameter List sends to a Wayback CDX server.
const cdxFieldList = "urlkey,timestamp,original,mimetype,statuscode,digest,length"

// pywbFieldList is the fl= parameter List sends to a pywb server, which
// prints fields by its own names only.
const pywbFieldList = "urlkey,timestamp,url,mime,status,digest,length"

// DefaultCDXFilters are the filters List sends to a Wayback CDX server
// when ListOptions.Filters is nil: only successful HTML and XHTML
// captures can carry blocks (inject writes blocks into .xhtml pages too,
// served as application/xhtml+xml). A filter's value is a regular
// expression matched against the whole field.
var DefaultCDXFilters = []string{"statuscode:200", `mimetype:text/html|application/xhtml\+xml`}

// DefaultPywbFilters are the filters List sends to a pywb server when
// ListOptions.Filters is nil: the same captures as DefaultCDXFilters,
// and revisit records (mime warc/revisit, status often "-"), which pywb
// lists as such and replays with their original's payload. "~" matches
// a regular expression at the beginning of the field; the listing checks
// the whole field itself (see ListOptions.Filters).
var DefaultPywbFilters = []string{`~status:(?:200|-)$`, `~mime:(?:text/html|application/xhtml\+xml|warc/revisit)`}

// DefaultPywbLimit is the limit= List sends to a pywb server when
// ListOptions.Limit is 0: pywb's own default, which it applies silently.
const DefaultPywbLimit = 100000

// revisitMIME is the mime type CDX servers list revisit records under.
const revisitMIME = "warc/revisit"

// filters returns the filters to send in dialect d.
func (o ListOptions) filters(d Dialect) []string {
	switch {
	case o.Filters != nil:
		return o.Filters
	case d == DialectPywb:
		return DefaultPywbFilters
	}
	return DefaultCDXFilters
}

// limit returns the limit= to send in dialect d, 0 for none.
func (o ListOptions) limit(d Dialect) int {
	if o.Limit == 0 && d == DialectPywb {
		return DefaultPywbLimit
	}
	return o.Limit
}

// textFields returns the field names of text rows answered in dialect d:
// the fl= sent.
func textFields(d Dialect) []string {
	if d == DialectPywb {
		return strings.Split(pywbFieldList, ",")
	}
	return strings.Split(cdxFieldList, ",")
}

// span is the capture times one query asks for; zero ends are open.
type span struct{ from, to time.Time }

// cdxQuery builds the URL of one CDX query in dialect d: the captures
// of pattern within sp, at most limit (0: no limit=), from resumeKey on
// (Wayback only).
func cdxQuery(srv CDXServer, d Dialect, pattern string, o ListOptions, sp span, limit int, resumeKey string) string {
	q := url.Values{}
	q.Set("url", pattern)
	q.Set("matchType", o.MatchType)
	q.Set("output", "json")
	q["filter"] = append([]string(nil), o.filters(d)...)
	if d == DialectPywb {
		q.Set("fl", pywbFieldList)
	} else {
		q.Set("fl", cdxFieldList)
		if o.Collapse != "-" {
			q.Set("collapse", o.Collapse)
		}
		q.Set("showResumeKey", "true")
	}
	if !sp.from.IsZero() {
		q.Set("from", FormatTimestamp(sp.from))
	}
	if !sp.to.IsZero() {
		q.Set("to", FormatTimestamp(sp.to))
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if resumeKey != "" {
		q.Set("resumeKey", resumeKey)
	}
	sep := "?"
	if strings.Contains(srv.API, "?") {
		sep = "&"
	}
	return srv.API + sep + q.Encode()
}

// htmlRow reports whether a row is what the default filters ask for,
// checked on the client whatever the server did with them: status 200
// and media type text/html or application/xhtml+xml (parameters and case
// aside), or a revisit record (mime warc/revisit) with status 200 or
// unknown ("-"). A row without a mime or status field is not checked
// for it: the server says nothing the filters could have gone by.
func htmlRow(m map[string]string) bool {
	mt, hasMIME := rowField(m, "mime")
	st, hasStatus := rowField(m, "status")
	status := parseDashInt(st, 999)
	if !hasMIME {
		return !hasStatus || status == 200
	}
	if parsed, _, err := mime.ParseMediaType(mt); err == nil {
		mt = parsed
	}
	switch strings.ToLower(strings.TrimSpace(mt)) {
	case "text/html", "application/xhtml+xml":
		return !hasStatus || status == 200
	case revisitMIME:
		return !hasStatus || status == 200 || status == 0
	}
	return false
}

// rowField returns the value of the row's field that fills the Capture
// field name (see cdxFields), and whether the row has one.
func rowField(m map[string]string, name string) (string, bool) {
	for k, v := range m {
		if cdxFields[k] == name {
			return v, true
		}
	}
	return "", false
}
