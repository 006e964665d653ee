package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
)

// TestCaptureCLI: a dry run plans and sends nothing; a run asks for the
// root page first and exits 0 once the archive holds the generation; a
// second run (JSON) has nothing to ask for.
func TestCaptureCLI(t *testing.T) {
	s := newCaptureSite(t, archivetest.SPNConfig{}, nil)
	code, stdout, stderr := s.run(t, "--access-key-file", s.iaKeys, "--dry-run")
	if code != exitOK || !strings.Contains(stdout, "Would ask for") || !strings.Contains(stdout, "1. "+s.url+" (the manifest") {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if n := len(s.spn.Requests()); n != 0 {
		t.Fatalf("dry run sent %d requests", n)
	}
	code, stdout, stderr = s.run(t, "--access-key-file", s.iaKeys)
	if code != exitOK || !strings.Contains(stdout, "captured   "+s.url) || !strings.Contains(stdout, "it is recoverable") {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = s.run(t, "--access-key-file", s.iaKeys, "--json")
	var rep struct {
		Plan []any `json:"plan"`
		Safe bool  `json:"safe"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); code != exitOK || err != nil || len(rep.Plan) != 0 || !rep.Safe {
		t.Fatalf("second run: exit %d (%v)\n%s\n%s", code, err, stdout, stderr)
	}
}
