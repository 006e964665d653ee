package archivetest

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// crawls returns the Common Crawl collections held, newest (greatest) first
// as collinfo.json lists them.
func (s *Server) crawls() []string {
	var ids []string
	for _, r := range s.rows {
		if !slices.Contains(ids, r.Crawl) {
			ids = append(ids, r.Crawl)
		}
	}
	slices.Sort(ids)
	slices.Reverse(ids)
	return ids
}

// serveCollInfo answers /collinfo.json.
func (s *Server) serveCollInfo(w http.ResponseWriter, r *http.Request) {
	type coll struct {
		ID       string `json:"id"`
		Name     string `json:"name"`
		TimeGate string `json:"timegate"`
		CDXAPI   string `json:"cdx-api"`
	}
	out := []coll{}
	for _, id := range s.crawls() {
		out = append(out, coll{ID: id, Name: "Test crawl " + id, TimeGate: s.URL + "/" + id + "/", CDXAPI: s.URL + "/" + id + "-index"})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

// ccLine is one NDJSON line of a Common Crawl index answer, fields in the
// order the real index writes them.
type ccLine struct {
	URLKey       string `json:"urlkey"`
	Timestamp    string `json:"timestamp"`
	URL          string `json:"url"`
	MIME         string `json:"mime"`
	MIMEDetected string `json:"mime-detected"`
	Status       string `json:"status"`
	Digest       string `json:"digest"`
	Length       string `json:"length"`
	Offset       string `json:"offset"`
	Filename     string `json:"filename"`
	Languages    string `json:"languages,omitempty"`
	Encoding     string `json:"encoding,omitempty"`
}

// serveCCIndex answers /{crawl}-index?url=…&output=json[&showNumPages=true][&page=N].
func (s *Server) serveCCIndex(w http.ResponseWriter, r *http.Request) {
	crawl := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"), "-index")
	q := r.URL.Query()
	if !slices.Contains(s.crawls(), crawl) || q.Get("url") == "" {
		http.NotFound(w, r)
		return
	}
	m := newMatcher(q.Get("url"), q.Get("matchType"))
	var rows []row
	for _, x := range s.rows {
		if x.Crawl == crawl && m.match(x.URL) {
			rows = append(rows, x)
		}
	}
	size := s.cfg.CCPageSize
	pages := (len(rows) + size - 1) / size
	w.Header().Set("Content-Type", "text/x-ndjson")
	if q.Get("showNumPages") == "true" {
		fmt.Fprintf(w, "{\"pages\": %d, \"pageSize\": %d, \"blocks\": %d}\n", pages, size, pages)
		return
	}
	if len(rows) == 0 {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, "{\"message\": \"No Captures found for: %s\"}\n", q.Get("url"))
		return
	}
	s.writeCCPage(w, q.Get("page"), rows, pages, size)
}

// writeCCPage writes one page of index lines, or 400 for a bad page.
func (s *Server) writeCCPage(w http.ResponseWriter, p string, rows []row, pages, size int) {
	page := 0
	if p != "" {
		var err error
		if page, err = strconv.Atoi(p); err != nil || page < 0 || page >= pages {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, "{\"message\": \"Page %s invalid: First Page is 0, Last Page is %d\"}\n", p, pages-1)
			return
		}
	}
	enc := json.NewEncoder(w)
	for _, x := range rows[page*size : min((page+1)*size, len(rows))] {
		enc.Encode(ccLine{URLKey: x.urlkey, Timestamp: x.ts, URL: x.URL, MIME: x.mime, MIMEDetected: x.MIME,
			Status: x.status, Digest: x.Digest, Length: strconv.FormatInt(x.recLen, 10),
			Offset: strconv.FormatInt(x.offset, 10), Filename: x.file, Languages: "eng", Encoding: "UTF-8"})
	}
}

// warcFile is the WARC file name of a crawl, relative to the data host.
func warcFile(crawl string) string {
	return "crawl-data/" + crawl + "/segments/0/warc/" + crawl + "-00000.warc.gz"
}

// buildWARCs writes one WARC file per crawl, each record its own gzip
// member, and records every capture's file, offset and length.
func (s *Server) buildWARCs() {
	s.warcs = map[string][]byte{}
	bufs := map[string]*bytes.Buffer{}
	// One writer, reset per record: each is a gzip member of its own, and
	// a new writer's state would be allocated and cleared every time.
	gz, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	for i := range s.rows {
		r := &s.rows[i]
		r.file = warcFile(r.Crawl)
		b := bufs[r.file]
		if b == nil {
			b = &bytes.Buffer{}
			bufs[r.file] = b
		}
		r.offset = int64(b.Len())
		gz.Reset(b)
		gz.Write(warcRecord(r))
		gz.Close()
		r.recLen = int64(b.Len()) - r.offset
	}
	for f, b := range bufs {
		s.warcs[f] = b.Bytes()
	}
}

// warcRecord renders a capture as a WARC/1.0 response record.
func warcRecord(r *row) []byte {
	var resp bytes.Buffer
	fmt.Fprintf(&resp, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
		max(r.Status, 0), http.StatusText(r.Status), r.MIME, len(r.Body))
	resp.Write(r.Body)
	id := sha1.Sum([]byte(r.URL + " " + r.ts))
	var b bytes.Buffer
	fmt.Fprintf(&b, "WARC/1.0\r\nWARC-Type: response\r\nWARC-Date: %s\r\n", r.Time.Format(time.RFC3339))
	fmt.Fprintf(&b, "WARC-Record-ID: <urn:uuid:%x-%x-%x-%x-%x>\r\n", id[0:4], id[4:6], id[6:8], id[8:10], id[10:16])
	fmt.Fprintf(&b, "WARC-Target-URI: %s\r\nWARC-Payload-Digest: sha1:%s\r\n", r.URL, r.Digest)
	fmt.Fprintf(&b, "Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n", resp.Len())
	b.Write(resp.Bytes())
	b.WriteString("\r\n\r\n")
	return b.Bytes()
}

// serveWARC serves a WARC file with Range support.
func (s *Server) serveWARC(w http.ResponseWriter, r *http.Request) {
	data, ok := s.warcs[strings.TrimPrefix(r.URL.Path, "/")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/warc")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
}
