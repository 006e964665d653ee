package recover_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	lzrecover "github.com/lazarus-preserve/lazarus/recover"
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
	got, err := lzrecover.ReadCapture(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for u, p := range c {
		if math.Abs(got[u]-p) > 1e-12 {
			t.Errorf("page %s: read %v, report %v", u, got[u], p)
		}
	}
}

// TestReadCaptureRefuses: what is not a status report with probabilities
// is refused with a reason.
func TestReadCaptureRefuses(t *testing.T) {
	for name, in := range map[string]string{
		"not json":      "generation 3",
		"no assessment": `{"site":"https://example.org/"}`,
		"model failed":  `{"assessment":{"error":"which pages carry generation x is unknown"}}`,
		"bad value":     `{"assessment":{"capture":{"/":1.5}}}`,
		"not a path":    `{"assessment":{"capture":{"https://evil/":0.5}}}`,
		"empty":         `{"assessment":{"capture":{}}}`,
	} {
		if _, err := lzrecover.ReadCapture(strings.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		} else if name == "model failed" && !errors.Is(err, lzrecover.ErrNoCapture) {
			t.Errorf("%s: %v, want ErrNoCapture", name, err)
		}
	}
}

func FuzzReadCapture(f *testing.F) {
	f.Add([]byte(`{"assessment":{"capture":{"/":0.5,"/a/":0.25}}}`))
	f.Add([]byte(`{"assessment":{"capture":{"/":-0}}}`))
	f.Add([]byte(`{"assessment":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := lzrecover.ReadCapture(bytes.NewReader(b))
		if err != nil {
			return
		}
		for u, p := range c {
			if !(p >= 0 && p <= 1) || !strings.HasPrefix(u, "/") {
				t.Fatalf("accepted %q: %v", u, p)
			}
		}
	})
}
