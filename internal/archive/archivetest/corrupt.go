package archivetest

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
)

// OverlongBytes is the size of the over-long field or link the malformed
// fault mixes into an answer: above any sane bound on one URL.
const OverlongBytes = 64 << 10

// corrupt mixes malformed rows into a CDX answer or malformed lines into
// a TimeMap, in place, keeping every real row and link.
func corrupt(r *http.Request, rec *httptest.ResponseRecorder, rng *rand.Rand) {
	body := rec.Body.Bytes()
	var out []byte
	switch {
	case strings.HasPrefix(r.URL.Path, "/timemap/"):
		out = corruptTimeMap(body, rng)
	case rec.Header().Get("Content-Type") == "application/json":
		out = corruptCDXJSON(body, rng)
	default:
		out = corruptCDXText(body, rng)
	}
	rec.Body = bytes.NewBuffer(out)
}

// insertAt inserts extra into list at random positions in [lo, hi].
func insertAt[T any](list []T, lo, hi int, rng *rand.Rand, extra ...T) []T {
	for _, e := range extra {
		at := lo + rng.IntN(hi-lo+1)
		list = append(list[:at], append([]T{e}, list[at:]...)...)
		hi++
	}
	return list
}

// corruptCDXJSON adds three bad rows among the data rows of a JSON CDX
// answer: a short one, one of garbage (cells that are not strings, a
// timestamp that is not one) and one with over-long cells.
func corruptCDXJSON(body []byte, rng *rand.Rand) []byte {
	var rows [][]any
	if json.Unmarshal(body, &rows) != nil || len(rows) == 0 {
		rows = [][]any{{"urlkey", "timestamp", "original"}}
	}
	n := len(rows[0])
	end := len(rows) // data rows end at the empty row before a resume key
	for i, row := range rows[1:] {
		if len(row) == 0 {
			end = i + 1
			break
		}
	}
	short := []any{"org,example)/"}
	if n == 1 {
		short = []any{}
	}
	garbage := make([]any, n)
	long := make([]any, n)
	for i := range garbage {
		garbage[i] = "\x01garbage\ufffd"
		long[i] = strings.Repeat("9", OverlongBytes)
	}
	garbage[0], garbage[n-1] = nil, map[string]any{"not": "a cell"}
	if n == 1 {
		garbage[0] = true
	}
	return jsonRows(insertAt(rows, 1, end, rng, short, garbage, long))
}

// corruptCDXText adds three bad lines among the rows of a plain-text CDX
// answer: a short one, one of garbage and an over-long one.
func corruptCDXText(body []byte, rng *rand.Rand) []byte {
	text := strings.TrimSuffix(string(body), "\n")
	lines := strings.Split(text, "\n")
	if text == "" {
		lines = nil
	}
	end := len(lines)
	for i, l := range lines {
		if l == "" {
			end = i
			break
		}
	}
	lines = insertAt(lines, 0, end, rng, "org,example)/ 2020", "\x01\x7fgarbage ]]} {{[ \ufffd", strings.Repeat("x", OverlongBytes)+" 20200101000000 http://example.org/")
	return []byte(strings.Join(lines, "\n") + "\n")
}

// corruptTimeMap adds three bad lines among the links of a TimeMap: one
// of garbage, a short memento link (no ';' before its parameters) and an
// over-long memento link.
func corruptTimeMap(body []byte, rng *rand.Rand) []byte {
	lines := strings.SplitAfter(string(body), ",\n")
	bad := []string{
		"garbage that is no link at all,\n",
		"<http://127.0.0.1/web/20200101000000/http://example.org/short> rel=\"memento\",\n",
		"<http://127.0.0.1/web/20200101000000/http://example.org/" + strings.Repeat("x", OverlongBytes) +
			">; rel=\"memento\"; datetime=\"Wed, 01 Jan 2020 00:00:00 GMT\",\n",
	}
	lines = insertAt(lines, 1, max(len(lines)-1, 1), rng, bad...)
	return []byte(strings.Join(lines, ""))
}
