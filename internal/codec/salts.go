package codec

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"net/url"
	"path"
	"sort"
	"sync"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/keys"
)

// Passphrase salts.
//
// In passphrase mode every new salt costs an Argon2id derivation (about
// 0.2 s and 64 MiB) before a block signed with it can be checked, and the
// verifier derives keys for at most keys.MaxSalts salts that verify
// nothing. A squatter's pages full of blocks with random salts must not
// use that budget up before the site's own salt is tried. So only the
// first salt seen is tried at once; blocks and manifests with any other
// new salt are parked. While pages come in, a parked salt is tried early
// when it was seen on at least two page paths (query strings aside) and on
// more than any other parked salt, at most maxEarlyTrials times without
// success. Settle tries the rest oldest capture first: a squatter came
// after the owner, and an archive's capture dates are not theirs to
// choose.

const (
	// maxParkedBytes bounds the payloads kept waiting for their salt.
	maxParkedBytes = 64 << 20
	// maxPendingSalts bounds the salts tracked while parked.
	maxPendingSalts = 4096
	// maxSaltURLs bounds the distinct page paths counted per salt.
	maxSaltURLs = 1024
	// maxEarlyTrials bounds the parked salts tried while pages come in
	// that verify nothing; the rest of the budget is Settle's.
	maxEarlyTrials = 4
	// maxExtraSalts bounds the salts Settle tries once one has verified
	// (a site that changed its salt has two or three).
	maxExtraSalts = 8
)

type itemKind int

const (
	itemBlock itemKind = iota
	itemManifest
)

// parkedItem is a block or manifest waiting for its salt to be tried.
type parkedItem struct {
	kind    itemKind
	payload []byte
	from    Origin
}

// pendingSalt is the evidence for one untried salt.
type pendingSalt struct {
	salt     [keys.SaltSize]byte
	urls     map[[8]byte]bool
	captures int
	earliest int64 // oldest capture seen (Unix s)
	lastPage int   // page counter when last seen, to count captures
	items    []parkedItem
	dropped  int // items seen but not kept (memory bound)
}

// saltTriage decides which salts are worth a derivation. Nil outside
// passphrase mode.
type saltTriage struct {
	v *keys.Verifier

	mu      sync.Mutex
	tried   int // salts tried on sight
	early   int // parked salts tried early that verified nothing
	page    int // pages seen
	pending map[[keys.SaltSize]byte]*pendingSalt
	order   []*pendingSalt // first seen first, for stable ties
	parked  int64          // bytes held
	lost    int            // items whose salt could not even be tracked
}

func newSaltTriage(v *keys.Verifier) *saltTriage {
	return &saltTriage{v: v, pending: map[[keys.SaltSize]byte]*pendingSalt{}}
}

// park reports whether an item signed by keyID with salt must wait, and
// keeps it if so.
func (t *saltTriage) park(keyID [keys.KeyIDSize]byte, salt [keys.SaltSize]byte, kind itemKind, payload []byte, from Origin) bool {
	if t == nil || keyID == ([keys.KeyIDSize]byte{}) || salt == ([keys.SaltSize]byte{}) || t.v.Derived(salt) {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.pending[salt]
	if p == nil {
		if t.tried == 0 {
			t.tried++
			return false // the first salt seen is tried at once
		}
		if len(t.pending) >= maxPendingSalts {
			t.lost++
			return true
		}
		p = &pendingSalt{salt: salt, urls: map[[8]byte]bool{}, lastPage: -1, earliest: unknownTime}
		t.pending[salt] = p
		t.order = append(t.order, p)
	}
	if p.lastPage != t.page {
		p.captures, p.lastPage = p.captures+1, t.page
	}
	p.earliest = min(p.earliest, from.stamp())
	if h := sha256.Sum256([]byte(pathOf(from.URL))); len(p.urls) < maxSaltURLs {
		p.urls[[8]byte(h[:8])] = true
	}
	if t.parked+int64(len(payload)) > maxParkedBytes {
		p.dropped++
		return true
	}
	t.parked += int64(len(payload))
	p.items = append(p.items, parkedItem{kind: kind, payload: append([]byte(nil), payload...), from: from})
	return true
}

// evidence orders salts: more URLs, then more captures, then more items.
func (p *pendingSalt) beats(q *pendingSalt) bool {
	if len(p.urls) != len(q.urls) {
		return len(p.urls) > len(q.urls)
	}
	if p.captures != q.captures {
		return p.captures > q.captures
	}
	return len(p.items)+p.dropped > len(q.items)+q.dropped
}

// afterPage ends a page: the leading salt is tried if it is clearly
// ahead. It returns what its items contributed, by origin.
func (t *saltTriage) afterPage(a *Assembler) []PageReport {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	t.page++
	var lead, second *pendingSalt
	for _, p := range t.order {
		switch {
		case lead == nil || p.beats(lead):
			lead, second = p, lead
		case second == nil || p.beats(second):
			second = p
		}
	}
	if lead == nil || t.early >= maxEarlyTrials || len(lead.urls) < 2 || second != nil && len(second.urls) >= len(lead.urls) {
		t.mu.Unlock()
		return nil
	}
	t.take(lead)
	t.mu.Unlock()
	before := t.v.Trusted()
	reps, _ := a.release(lead)
	if t.v.Trusted() == before {
		t.mu.Lock()
		t.early++
		t.mu.Unlock()
	}
	return reps
}

// pathOf is the path of a page URL without query or fragment: the
// evidence a salt was seen on one more page of the site.
func pathOf(u string) string {
	if pu, err := url.Parse(u); err == nil {
		return path.Clean("/" + pu.Path)
	}
	return u
}

// take removes p from the pending salts (t.mu held).
func (t *saltTriage) take(p *pendingSalt) {
	delete(t.pending, p.salt)
	for i, q := range t.order {
		if q == p {
			t.order = append(t.order[:i], t.order[i+1:]...)
			break
		}
	}
	for _, it := range p.items {
		t.parked -= int64(len(it.payload))
	}
}

// settle tries every salt still parked, oldest capture first (then most
// evidence), until the verifier's budget is spent. Once some salt has
// verified, only maxExtraSalts more are tried, and salts seen on a single
// page are not worth a derivation.
func (t *saltTriage) settle(a *Assembler) PageReport {
	var rep PageReport
	if t == nil {
		return rep
	}
	t.mu.Lock()
	order := append([]*pendingSalt(nil), t.order...)
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].earliest != order[j].earliest {
			return order[i].earliest < order[j].earliest
		}
		return order[i].beats(order[j])
	})
	for _, p := range order {
		t.take(p)
	}
	lost := t.lost
	t.mu.Unlock()
	untried, untriedItems, spent, extra := 0, lost, false, 0
	for _, p := range order {
		trusted := t.v.Trusted() > 0
		if spent || trusted && (len(p.urls) < 2 || extra >= maxExtraSalts) {
			untried, untriedItems = untried+1, untriedItems+len(p.items)+p.dropped
			continue
		}
		if trusted {
			extra++
		}
		reps, s := a.release(p)
		rep.Released = append(rep.Released, reps...)
		spent = s
	}
	if untriedItems > 0 {
		rep.problem(fmt.Errorf("%d blocks and manifests with %d passphrase salts never tried (seen on too few pages, or after %d salts verified nothing)", untriedItems, untried, keys.MaxSalts))
	}
	return rep
}

// release verifies and adds the items parked under p. It reports whether
// the verifier refused to derive any more keys.
func (a *Assembler) release(p *pendingSalt) ([]PageReport, bool) {
	byURL := map[string]*PageReport{}
	var out []*PageReport
	spent := false
	for _, it := range p.items {
		r := byURL[it.from.URL]
		if r == nil {
			r = &PageReport{From: it.from}
			byURL[it.from.URL] = r
			out = append(out, r)
		}
		err := a.addItem(it, r)
		spent = spent || errors.Is(err, keys.ErrTooManySalts)
		if err != nil {
			r.problem(err)
		}
	}
	if p.dropped > 0 && len(out) > 0 {
		out[0].problem(fmt.Errorf("%d more items with this salt were not kept (over %d MiB parked)", p.dropped, maxParkedBytes>>20))
	}
	reps := make([]PageReport, len(out))
	for i, r := range out {
		reps[i] = *r
	}
	return reps, spent
}

// addItem adds a parked item now that its salt is tried.
func (a *Assembler) addItem(it parkedItem, r *PageReport) error {
	if it.kind == itemManifest {
		m, err := a.AddManifest(it.payload)
		if err != nil {
			r.Rejected++
			return err
		}
		r.Manifests = append(r.Manifests, m)
		return nil
	}
	b, err := block.Parse(it.payload)
	if err != nil {
		r.Rejected++
		return err
	}
	o, err := a.addParsed(b, it.from)
	r.count(o)
	return err
}
