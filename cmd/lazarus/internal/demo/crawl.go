package demo

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"golang.org/x/net/html"

	"github.com/lazarus-preserve/lazarus/internal/contentcoding"
	"github.com/lazarus-preserve/lazarus/internal/warc"
)

// crawlStats says what a crawl saw.
type crawlStats struct {
	Pages   int
	Bytes   int64
	Codings map[string]int // pages by the Content-Encoding they were sent in
}

// codings says which codings the pages came in, most used first.
func (st crawlStats) codings() string {
	names := make([]string, 0, len(st.Codings))
	for c := range st.Codings {
		names = append(names, c)
	}
	sort.Slice(names, func(i, j int) bool {
		return st.Codings[names[i]] > st.Codings[names[j]] || st.Codings[names[i]] == st.Codings[names[j]] && names[i] < names[j]
	})
	return strings.Join(names, ", ")
}

// crawl walks a site breadth-first from root, following same-host links,
// asking for "gzip, deflate, zstd" as the Internet Archive's crawler does,
// and stores every response as sent in a WARC file (one gzip member per
// record).
func crawl(ctx context.Context, root, warcPath string, maxPages int) (crawlStats, error) {
	st := crawlStats{Codings: map[string]int{}}
	f, err := os.Create(warcPath)
	if err != nil {
		return st, err
	}
	defer f.Close()
	w := warc.NewWriter(f, true)
	base, err := url.Parse(root)
	if err != nil {
		return st, err
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableCompression: true}}
	queue, seen := []string{base.String()}, map[string]bool{base.String(): true}
	for len(queue) > 0 && st.Pages < maxPages {
		u := queue[0]
		queue = queue[1:]
		raw, body, coding, err := fetchRaw(ctx, client, u)
		if err != nil {
			return st, err
		}
		st.Codings[coding]++
		if err := w.WriteResponse(u, time.Now(), raw); err != nil {
			return st, err
		}
		st.Pages++
		st.Bytes += int64(len(raw))
		for _, l := range links(body, u, base.Host) {
			if !seen[l] {
				seen[l] = true
				queue = append(queue, l)
			}
		}
	}
	return st, f.Sync()
}

// fetchRaw GETs a page and returns the HTTP response as sent (status line,
// headers, body still encoded if it was), the decoded body and the coding
// it was sent in ("identity" for none).
func fetchRaw(ctx context.Context, client *http.Client, u string) (raw, decoded []byte, coding string, err error) {
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return nil, nil, "", err
	}
	req.Header.Set("Accept-Encoding", "gzip, deflate, zstd")
	req.Header.Set("User-Agent", "lazarus-demo-crawler (archive stand-in)")
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, "", err
	}
	var msg bytes.Buffer
	fmt.Fprintf(&msg, "HTTP/1.1 %s\r\n", resp.Status)
	resp.Header.Del("Transfer-Encoding")
	resp.Header.Set("Content-Length", fmt.Sprint(len(body)))
	keys := make([]string, 0, len(resp.Header))
	for k := range resp.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range resp.Header[k] {
			fmt.Fprintf(&msg, "%s: %s\r\n", k, v)
		}
	}
	msg.WriteString("\r\n")
	msg.Write(body)
	r, codings, err := contentcoding.Decode(bytes.NewReader(body), resp.Header)
	if err == nil {
		decoded, err = io.ReadAll(r)
	}
	if err != nil {
		return nil, nil, "", fmt.Errorf("%s: %w", u, err)
	}
	coding = strings.Join(codings, ", ")
	if coding == "" {
		coding = "identity"
	}
	return msg.Bytes(), decoded, coding, nil
}

// links returns the same-host http(s) links of a page, without fragments
// or query strings, resolved against its URL.
func links(page []byte, pageURL, host string) []string {
	base, err := url.Parse(pageURL)
	if err != nil {
		return nil
	}
	var out []string
	z := html.NewTokenizer(bytes.NewReader(page))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return out
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, more := z.TagName()
		for more && string(name) == "a" {
			var k, v []byte
			k, v, more = z.TagAttr()
			if string(k) != "href" {
				continue
			}
			ref, err := url.Parse(string(v))
			if err != nil {
				continue
			}
			abs := base.ResolveReference(ref)
			abs.Fragment, abs.RawQuery = "", ""
			if abs.Host == host && (abs.Scheme == "http" || abs.Scheme == "https") {
				out = append(out, abs.String())
			}
		}
	}
}
