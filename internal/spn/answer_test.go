package spn

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestParseSubmit(t *testing.T) {
	for _, tc := range []struct {
		name, body, id, ext string
		malformed           bool
	}{
		{"job", `{"url":"https://example.org/","job_id":"spn2-0123456789abcdef0123456789abcdef01234567"}`, "spn2-0123456789abcdef0123456789abcdef01234567", "", false},
		{"error", `{"status":"error","status_ext":"error:user-session-limit","message":"wait"}`, "", ExtSessionLimit, false},
		{"ext without status", `{"status_ext":"error:too-many-daily-captures"}`, "", ExtDailyLimit, false},
		{"error without ext", `{"status":"error","message":"x"}`, "", "error:unknown", false},
		{"no job id", `{"url":"https://example.org/"}`, "", "", true},
		{"job id with a slash", `{"job_id":"../user"}`, "", "", true},
		{"not json", `<html>Too Many Requests</html>`, "", "", true},
		{"array", `[]`, "", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, err := parseSubmit([]byte(tc.body))
			var je *JobError
			switch {
			case tc.malformed:
				if !errors.Is(err, errMalformed) {
					t.Fatalf("got %q, %v; want malformed", id, err)
				}
			case tc.ext != "":
				if !errors.As(err, &je) || je.Ext != tc.ext {
					t.Fatalf("got %q, %v; want %s", id, err, tc.ext)
				}
			case err != nil || id != tc.id:
				t.Fatalf("got %q, %v; want %q", id, err, tc.id)
			}
		})
	}
}

func TestParseStatus(t *testing.T) {
	j, err := parseStatus([]byte(`{"status":"success","job_id":"spn2-1","original_url":"https://example.org/a","timestamp":"20260102030405","duration_sec":3.2}`))
	if err != nil || j.State != StateSuccess || j.OriginalURL != "https://example.org/a" || j.Time.Format("2006-01-02T15:04:05") != "2026-01-02T03:04:05" {
		t.Fatalf("success: %+v %v", j, err)
	}
	j, err = parseStatus([]byte(`{"status":"error","status_ext":"error:host-crawling-paused","message":"paused"}`))
	if err != nil || j.State != StateError || !errors.Is(j.Err, ErrHostPaused) {
		t.Fatalf("error: %+v %v", j, err)
	}
	if j, err = parseStatus([]byte(`{"status":"pending","resources":[]}`)); err != nil || j.State != StatePending {
		t.Fatalf("pending: %+v %v", j, err)
	}
	for _, bad := range []string{`{"status":"success"}`, `{"status":"done"}`, `{}`, `nul`} {
		if _, err := parseStatus([]byte(bad)); !errors.Is(err, errMalformed) {
			t.Errorf("%s: %v, want malformed", bad, err)
		}
	}
}

// FuzzAnswers: the API's answers are untrusted. Parsing never panics, an
// accepted job id is one the client can put in a URL path, a status is
// one of the three states with what each needs, and a job id or status
// re-encoded as the API would parses back the same.
func FuzzAnswers(f *testing.F) {
	for _, s := range []string{
		`{"url":"https://example.org/","job_id":"spn2-0123456789abcdef0123456789abcdef01234567"}`,
		`{"status":"error","status_ext":"error:user-session-limit","message":"wait"}`,
		`{"status":"success","job_id":"spn2-1","original_url":"https://example.org/a","timestamp":"20260102030405"}`,
		`{"status":"pending","job_id":"spn2-1","resources":[]}`,
		`{"job_id":"a/b"}`, `[]`, `"x"`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if id, err := parseSubmit(body); err == nil {
			if !jobID.MatchString(id) {
				t.Fatalf("accepted job id %q", id)
			}
			again, _ := json.Marshal(map[string]string{"job_id": id})
			if id2, err := parseSubmit(again); err != nil || id2 != id {
				t.Fatalf("round trip %q: %q %v", id, id2, err)
			}
		}
		j, err := parseStatus(body)
		if err != nil {
			return
		}
		switch j.State {
		case StatePending:
		case StateSuccess:
			if j.Time.IsZero() {
				t.Fatalf("success without a time: %+v", j)
			}
		case StateError:
			if j.Err == nil || j.Err.Ext == "" {
				t.Fatalf("error without status_ext: %+v", j)
			}
		default:
			t.Fatalf("state %q", j.State)
		}
	})
}
