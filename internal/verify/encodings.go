package verify

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/contentcoding"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// acceptEncodings are the Accept-Encoding values crawlers send, and who
// sends each. A site answers each in the coding it prefers, and archives
// store that coding: blocks must survive every one.
var acceptEncodings = []struct{ value, crawlers string }{
	{"identity", "wget and crawlers that ask for no coding"},
	{"gzip, deflate", "most crawlers"},
	{"gzip, deflate, zstd", "the Internet Archive's crawler since 2026"},
	{"gzip, deflate, br, zstd", "browsers: Save Page Now, Browsertrix, Webrecorder"},
}

// crawlAcceptEncoding is what Verify's crawl asks for: the Internet
// Archive's crawler's Accept-Encoding, so that what the crawl counts is
// what that archive stores.
var crawlAcceptEncoding = acceptEncodings[2].value

// encodingPages bounds the pages whose codings are checked: the root page
// and the first carriers of the signal checks' sample.
const encodingPages = 4

// EncodingCheck is what a crawler sending one Accept-Encoding gets from
// the pages checked (the root page and up to three carriers).
type EncodingCheck struct {
	AcceptEncoding string `json:"accept_encoding"`
	Crawlers       string `json:"crawlers"` // who sends it
	Checked        int    `json:"checked"`  // pages asked
	Pages          int    `json:"pages"`    // of them answered 200 in a coding recover reads
	// Codings counts the pages by the Content-Encoding they were answered
	// in ("identity" for none).
	Codings map[string]int `json:"codings"`
	// SameBlocks counts the pages whose decoded body carries the same
	// Lazarus comments as the answer to "identity".
	SameBlocks int      `json:"same_blocks"`
	Problems   []string `json:"problems,omitempty"`
}

// codingAnswer is one page's answer to one Accept-Encoding.
type codingAnswer struct {
	status   int
	coding   string
	comments map[[32]byte]bool // intact Lazarus comments, by SHA-256 of the payload
	err      error             // the body could not be decoded
}

// encodings checks what each Accept-Encoding gets from the root page and
// the first carriers of the sample.
func (v *verification) encodings(ctx context.Context, sample []string) error {
	checks := make([]EncodingCheck, len(acceptEncodings))
	for i, ae := range acceptEncodings {
		checks[i] = EncodingCheck{AcceptEncoding: ae.value, Crawlers: ae.crawlers, Codings: map[string]int{}}
	}
	for _, u := range sample[:min(encodingPages, len(sample))] {
		var ref *codingAnswer
		for i, ae := range acceptEncodings {
			checks[i].Checked++
			a, err := v.getCoded(ctx, u, ae.value)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				checks[i].Problems = append(checks[i].Problems, fmt.Sprintf("%s: %v", u, err))
				continue
			}
			if ref == nil && a.err == nil && a.status == http.StatusOK {
				ref = &a // "identity", unless that failed
			}
			judgeCoding(&checks[i], u, a, ref)
		}
	}
	v.rep.Encodings = checks
	for _, c := range checks {
		for _, p := range c.Problems {
			v.rep.Warnings = append(v.rep.Warnings, fmt.Sprintf("crawlers asking for %q (%s): %s", c.AcceptEncoding, c.Crawlers, p))
		}
	}
	return nil
}

// judgeCoding counts one page's answer in c, against the reference
// answer's comments.
func judgeCoding(c *EncodingCheck, u string, a codingAnswer, ref *codingAnswer) {
	switch {
	case a.status != http.StatusOK:
		c.Problems = append(c.Problems, fmt.Sprintf("%s: answered %d", u, a.status))
		return
	case a.err != nil:
		c.Problems = append(c.Problems, fmt.Sprintf("%s: answered in %s, which recover cannot read: %v", u, a.coding, a.err))
		return
	}
	c.Pages++
	c.Codings[a.coding]++
	if ref == nil {
		return
	}
	missing, extra := 0, 0
	for k := range ref.comments {
		if !a.comments[k] {
			missing++
		}
	}
	for k := range a.comments {
		if !ref.comments[k] {
			extra++
		}
	}
	if missing == 0 && extra == 0 {
		c.SameBlocks++
		return
	}
	c.Problems = append(c.Problems, fmt.Sprintf("%s: answered in %s with other Lazarus blocks than without a coding (%d missing, %d others): "+
		"a precompressed copy (.br, .gz, .zst) or a cache older than the page", u, a.coding, missing, extra))
}

// getCoded GETs u asking for the codings in acceptEncoding and reads the
// body decoded, as recover reads a capture of it.
func (v *verification) getCoded(ctx context.Context, u, acceptEncoding string) (codingAnswer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return codingAnswer{}, err
	}
	req.Header.Set("Accept-Encoding", acceptEncoding) // set: Go's transport then leaves the body coded
	resp, err := v.o.Client.Do(req)
	if err != nil {
		return codingAnswer{}, err
	}
	defer resp.Body.Close()
	a := codingAnswer{status: resp.StatusCode, coding: strings.Join(contentcoding.Parse(resp.Header.Values("Content-Encoding")), ", ")}
	if a.coding == "" {
		a.coding = "identity"
	}
	if a.status != http.StatusOK {
		return a, nil
	}
	body, _, err := contentcoding.Response(resp)
	if err != nil {
		a.err = err
		return a, nil
	}
	page, err := io.ReadAll(io.LimitReader(body, source.DefaultMaxCapture))
	if err != nil {
		a.err = err
		return a, nil
	}
	a.comments = map[[32]byte]bool{}
	for f := range htmlblock.All(page) {
		if f.Err == nil {
			a.comments[sha256.Sum256(f.Payload)] = true
		}
	}
	return a, nil
}

// codingsShort says which crawlers get other blocks than the crawl, or a
// coding recover cannot read, on the pages checked; "" if none. Archives
// keep what their crawler got: a stale precompressed copy answered to one
// of them leaves that archive without the generation's blocks.
func codingsShort(checks []EncodingCheck) string {
	var parts []string
	for _, c := range checks {
		if len(c.Problems) > 0 {
			parts = append(parts, fmt.Sprintf("crawlers asking for %q (%s) get other blocks or a coding recover cannot read on %d of %d pages checked",
				c.AcceptEncoding, c.Crawlers, len(c.Problems), c.Checked))
		}
	}
	return strings.Join(parts, "; ")
}
