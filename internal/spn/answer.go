package spn

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/ondemand"
)

// maxAnswer bounds one API answer's bytes: real ones are a few hundred
// bytes (a status lists the page's resources: a few KiB).
const maxAnswer = 1 << 20

// Job states in a status answer (success and error are also the states
// of a Result).
const (
	StatePending = "pending"
	StateSuccess = ondemand.StateSuccess
	StateError   = ondemand.StateError
)

// answer is the union of the API's JSON answers: a submission
// ({"url", "job_id"} or {"status": "error", "status_ext", "message"}) and
// a job status ({"status": "pending"|"success"|"error", "job_id",
// "original_url", "timestamp", "status_ext", "message", …}).
type answer struct {
	URL         string `json:"url"`
	JobID       string `json:"job_id"`
	Status      string `json:"status"`
	StatusExt   string `json:"status_ext"`
	Message     string `json:"message"`
	OriginalURL string `json:"original_url"`
	Timestamp   string `json:"timestamp"`
}

// jobID is what job ids look like ("spn2-" and 40 hex digits on the
// Internet Archive); anything else is refused, as it goes into a URL path.
var jobID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// errMalformed marks an answer that is not one of the API's.
var errMalformed = errors.New("malformed answer")

// decode reads one JSON answer.
func decode(body []byte) (answer, error) {
	var a answer
	if len(body) > maxAnswer {
		return a, fmt.Errorf("%w: %d bytes", errMalformed, len(body))
	}
	if err := json.Unmarshal(body, &a); err != nil {
		return a, fmt.Errorf("%w: %v", errMalformed, err)
	}
	return a, nil
}

// parseSubmit reads the answer to POST /save: the job id, or the
// *JobError the API answered.
func parseSubmit(body []byte) (string, error) {
	a, err := decode(body)
	if err != nil {
		return "", err
	}
	if a.Status == StateError || a.StatusExt != "" && a.JobID == "" {
		return "", &JobError{Ext: orDefault(a.StatusExt, "error:unknown"), Message: a.Message}
	}
	if !jobID.MatchString(a.JobID) {
		return "", fmt.Errorf("%w: no usable job_id", errMalformed)
	}
	return a.JobID, nil
}

// Job is a capture job's state, from GET /save/status/{job_id}.
type Job struct {
	ID    string
	State string // StatePending, StateSuccess or StateError
	// OriginalURL is the URL captured (after redirects), on success.
	OriginalURL string
	// Time is the capture's timestamp, on success.
	Time time.Time
	// Err is the job's error, in state StateError.
	Err *JobError
}

// parseStatus reads a job status answer.
func parseStatus(body []byte) (Job, error) {
	a, err := decode(body)
	if err != nil {
		return Job{}, err
	}
	j := Job{ID: a.JobID, State: a.Status}
	switch a.Status {
	case StatePending:
	case StateSuccess:
		t, err := time.Parse("20060102150405", a.Timestamp)
		if err != nil {
			return Job{}, fmt.Errorf("%w: success without a timestamp", errMalformed)
		}
		j.Time, j.OriginalURL = t, a.OriginalURL
	case StateError:
		j.Err = &JobError{Ext: orDefault(a.StatusExt, "error:unknown"), Message: a.Message}
	default:
		return Job{}, fmt.Errorf("%w: status %q", errMalformed, a.Status)
	}
	return j, nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
