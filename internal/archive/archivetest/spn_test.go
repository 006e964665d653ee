package archivetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSPN: the server refuses a wrong key (401), answers pending for
// unknown jobs, and captures a page into the archive, whose CDX API and
// id_ replay then serve it while other requests run concurrently.
func TestSPN(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html>page</html>")
	}))
	defer site.Close()
	arch, err := New(nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer arch.Close()
	s, err := NewSPN(arch, SPNConfig{Access: "a", Secret: "s", Allow: []string{strings.TrimPrefix(site.URL, "http://")}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	call := func(method, path, auth string, form url.Values) (int, map[string]any) {
		req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	if code, _ := call("POST", "/save", "LOW a:wrong", url.Values{"url": {site.URL + "/"}}); code != http.StatusUnauthorized {
		t.Fatalf("wrong key: %d", code)
	}
	if _, m := call("GET", "/save/status/spn2-nope", "LOW a:s", nil); m["status"] != "pending" {
		t.Fatalf("unknown job: %v", m)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() { // CDX requests while the capture is added
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				if resp, err := http.Get(arch.URL + "/cdx/search/cdx?url=x"); err == nil {
					resp.Body.Close()
				}
			}
		}
	}()
	_, m := call("POST", "/save", "LOW a:s", url.Values{"url": {site.URL + "/"}})
	id, _ := m["job_id"].(string)
	deadline := time.Now().Add(10 * time.Second)
	for m["status"] != "success" && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
		_, m = call("GET", "/save/status/"+id, "LOW a:s", nil)
	}
	close(stop)
	wg.Wait()
	if m["status"] != "success" || m["original_url"] != site.URL+"/" {
		t.Fatalf("job %s: %v", id, m)
	}
	resp, err := http.Get(arch.URL + "/web/" + m["timestamp"].(string) + "id_/" + site.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if body, _ := io.ReadAll(resp.Body); string(body) != "<html>page</html>" {
		t.Fatalf("replay %d %q", resp.StatusCode, body)
	}
}
