package status_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/status"
)

// TestStatusCapture: status's report gives each modelled page the
// probability of a capture within CaptureHorizon, from the model's rates:
// the root, captured three times in two archives, above the pages never
// captured; what `status --json` prints reads back with ReadCapture.
func TestStatusCapture(t *testing.T) {
	w := newStatusWorld(t, plantNewest)
	rep := w.status(t, true, "")
	c := rep.Assessment.Capture
	if len(c) != rep.Assessment.Pages {
		t.Fatalf("capture for %d pages, %d modelled: %v", len(c), rep.Assessment.Pages, c)
	}
	for u, p := range c {
		if !(p > 0 && p < 1) || !strings.HasPrefix(u, "/") {
			t.Errorf("page %q: capture probability %v", u, p)
		}
	}
	if !(c["/"] > c["/p1.html"]) || c["/p1.html"] != c["/p6.html"] {
		t.Errorf("root %v, never captured p1 %v and p6 %v: the root was captured most", c["/"], c["/p1.html"], c["/p6.html"])
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(rep); err != nil {
		t.Fatal(err)
	}
	back, err := status.ReadReport(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if back.RestorePoint == nil || back.RestorePoint.Generation != rep.RestorePoint.Generation {
		t.Errorf("restore point read back %+v, report %+v", back.RestorePoint, rep.RestorePoint)
	}
	got := back.Assessment.Capture
	for u, p := range c {
		if math.Abs(got[u]-p) > 1e-12 {
			t.Errorf("page %s: read %v, report %v", u, got[u], p)
		}
	}
}

// TestReadStatusReportRefuses: what is not a status report, or holds
// values inject cannot use, is refused with a reason.
func TestReadStatusReportRefuses(t *testing.T) {
	const head = `"site":"https://example.org/","now":"2026-11-25T00:00:00Z"`
	for name, in := range map[string]string{
		"not json":           "generation 3",
		"no site":            `{"now":"2026-11-25T00:00:00Z"}`,
		"bad value":          `{` + head + `,"assessment":{"capture":{"/":1.5}}}`,
		"not a path":         `{` + head + `,"assessment":{"capture":{"https://evil/":0.5}}}`,
		"bad restore point":  `{` + head + `,"restore_point":{"generation":"../../etc","time":"2026-11-01T00:00:00Z"}}`,
		"capture not a map":  `{` + head + `,"assessment":{"capture":[0.5]}}`,
		"restore point type": `{` + head + `,"restore_point":"x"}`,
	} {
		if _, err := status.ReadReport(strings.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := status.ReadReport(strings.NewReader(`{` + head + `}`)); err != nil {
		t.Errorf("a report without restore point or assessment: %v", err)
	}
}

func FuzzReadStatusReport(f *testing.F) {
	f.Add([]byte(`{"site":"s","now":"2026-11-25T00:00:00Z","assessment":{"capture":{"/":0.5,"/a/":0.25}}}`))
	f.Add([]byte(`{"site":"s","now":"2026-11-25T00:00:00Z","restore_point":{"generation":"0123456789abcdef0123456789abcdef","age_seconds":1e300}}`))
	f.Add([]byte(`{"assessment":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rep, err := status.ReadReport(bytes.NewReader(b))
		if err != nil || rep.Assessment == nil {
			return
		}
		for u, p := range rep.Assessment.Capture {
			if !(p >= 0 && p <= 1) || !strings.HasPrefix(u, "/") {
				t.Fatalf("accepted %q: %v", u, p)
			}
		}
	})
}
