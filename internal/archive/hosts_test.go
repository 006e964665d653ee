package archive

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

const memDate = `datetime="Wed, 01 Jan 2020 00:00:00 GMT"`

// TestTimeMapForeignLinks: a TimeMap page's rel="timemap" link to another
// host is not fetched, and mementos whose URI-M is on another host (not a
// known archive) are not delivered; both are reported. Mementos on the
// TimeMap's host and on known archives (aggregators list those) are.
func TestTimeMapForeignLinks(t *testing.T) {
	other, otherHits := hostile(t, func(w http.ResponseWriter, r *http.Request, n int) {
		fmt.Fprintf(w, `<%s/web/20200101000000/http://example.org/>; rel="memento"; %s`, "http://"+r.Host, memDate)
	})
	srv, _ := hostile(t, func(w http.ResponseWriter, r *http.Request, n int) {
		self := "http://" + r.Host
		fmt.Fprintf(w, "<http://example.org/>; rel=\"original\",\n"+
			"<%[1]s/web/20200101000000/http://example.org/>; rel=\"memento\"; %[3]s,\n"+
			"<https://web.archive.org/web/20200102000000/http://example.org/>; rel=\"memento\"; %[3]s,\n"+
			"<%[2]s/web/20200103000000/http://example.org/>; rel=\"memento\"; %[3]s,\n"+
			"<file:///etc/passwd>; rel=\"memento\"; %[3]s,\n"+
			"<%[2]s/timemap/2>; rel=\"timemap\"\n", self, other.URL, memDate)
	})
	var replays []string
	err := ListTimeMap(context.Background(), srv.Client(), srv.URL+"/timemap/link/http://example.org/", TimeMapOptions{}, func(c Capture) error {
		replays = append(replays, c.Replay)
		return nil
	})
	t.Logf("delivered %q, %d requests to the other host, err %v", replays, otherHits.Load(), err)
	if otherHits.Load() != 0 {
		t.Errorf("the other host got %d requests", otherHits.Load())
	}
	want := []string{srv.URL + "/web/20200101000000id_/http://example.org/", "https://web.archive.org/web/20200102000000id_/http://example.org/"}
	if strings.Join(replays, " ") != strings.Join(want, " ") {
		t.Errorf("delivered %q, want %q", replays, want)
	}
	if err == nil || !strings.Contains(err.Error(), "3 links to other hosts not followed") {
		t.Errorf("err %v, want 3 links to other hosts reported", err)
	}
}

// TestListCrawlsForeignCDXAPI: a crawl whose cdx-api is on another host
// is left out and reported; the others are kept, relative ones resolved.
func TestListCrawlsForeignCDXAPI(t *testing.T) {
	srv, _ := hostile(t, func(w http.ResponseWriter, r *http.Request, n int) {
		fmt.Fprintf(w, `[{"id":"CC-MAIN-2024-10","cdx-api":"http://%s/CC-MAIN-2024-10-index"},`+
			`{"id":"CC-EVIL","cdx-api":"http://169.254.169.254/latest/meta-data"},`+
			`{"id":"CC-MAIN-2023-50","cdx-api":"/CC-MAIN-2023-50-index"}]`, r.Host)
	})
	crawls, err := ListCrawls(context.Background(), srv.Client(), srv.URL+"/collinfo.json")
	t.Logf("crawls %+v, err %v", crawls, err)
	if err == nil || !strings.Contains(err.Error(), "CC-EVIL") {
		t.Errorf("err %v, want the foreign crawl named", err)
	}
	if len(crawls) != 2 || crawls[0].ID != "CC-MAIN-2024-10" || crawls[1].CDXAPI != srv.URL+"/CC-MAIN-2023-50-index" {
		t.Errorf("crawls %+v, want the two on the index host", crawls)
	}
}
