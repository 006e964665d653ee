package codec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// scanCase is a sequence of pages to add in order, with the keys to
// check them.
type scanCase struct {
	name   string
	opener func() *keys.Opener // a fresh one: a passphrase verifier keeps state
	opts   Options
	pages  []Page
	covers []string // what AddPage's reports must show: see coverage
}

// scanCases builds the page sequences on which Scan+AddScanned must match
// AddPage: a site with every kind of damage, a stolen key's conflicting
// blocks, foreign and unsigned blocks and manifests; passphrase mode with
// a squatter's salts and the owner's second salt, parked and released;
// unsigned data allowed.
func scanCases(t *testing.T) []scanCase {
	a, b := testKeys(t)
	r := rand.New(rand.NewPCG(26, 26))
	var cases []scanCase

	in := []Input{
		{Name: "app", Entries: []bundle.Entry{memEntry("app/index.php", randomBytes(r, 30000), 0o644)}},
		{Name: "db", Entries: []bundle.Entry{memEntry("db.sql", bytes.Repeat([]byte("INSERT INTO t VALUES (1);\n"), 900), 0o600)}},
	}
	site := packSite(t, 6, in, a.Server().Sealer())
	urls := slices.Sorted(func(yield func(string) bool) {
		for u := range site {
			if !yield(u) {
				return
			}
		}
	})
	early := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var pages []Page
	for i, u := range urls {
		pages = append(pages, Page{Bytes: site[u], From: Origin{Source: "test", URL: "https://example.org" + u, Time: early.Add(time.Duration(i) * time.Hour)}})
	}
	_, _, blocks := encodeAll(t, Input{Name: "app", Entries: in[0].Entries}, a.Server().Sealer(), fixed(3, 3, 2048))
	forged := forgeAll(t, blocks, func(d []byte) []byte { return a.Signer().Sign("block", d) }, r)
	foreign := &keys.Sealer{Cipher: keys.CipherX25519, Recipients: a.Server().Sealer().Recipients, Signer: b.Signer()}
	_, _, fb := encodeAll(t, Input{Name: "app", Entries: in[0].Entries}, foreign, fixed(3, 3, 2048))
	_, _, ub := encodeAll(t, Input{Name: "app", Entries: in[0].Entries}, keys.PublicSealer(nil), fixed(3, 3, 2048))
	flipped := bytes.Clone(blocks[0][0])
	flipped[150] ^= 1
	manifestOf := func(page []byte) []byte {
		for f := range htmlblock.All(page) {
			if f.Kind == htmlblock.KindManifest {
				return f.Payload
			}
		}
		t.Fatal("no manifest")
		return nil
	}
	badManifest := bytes.Clone(manifestOf(site[urls[0]]))
	badManifest[len(badManifest)-1] ^= 1 // signature
	damaged := [][]byte{
		armor(t, htmlblock.KindBlock, fb[0][0]), armor(t, htmlblock.KindBlock, ub[0][1]),
		armor(t, htmlblock.KindBlock, flipped), armor(t, htmlblock.KindManifest, badManifest),
		armor(t, htmlblock.KindManifest, []byte("not a manifest")), armor(t, htmlblock.KindBlock, []byte("LZRB\x09")),
		[]byte("<!-- lazarus block 1 TFpS*QgEB -->"), []byte("<!-- lazarus block 7 TFpSQgEB -->"),
		[]byte("<!-- lazarus gizmo 1 TFpSQgEB -->"), []byte("<!-- lazarus manifest 1 -->"),
	}
	var stolen [][]byte
	for _, s := range forged {
		for _, enc := range s {
			stolen = append(stolen, armor(t, htmlblock.KindBlock, enc))
		}
	}
	var genuine [][]byte
	for _, s := range blocks {
		for _, enc := range s[:3] {
			genuine = append(genuine, armor(t, htmlblock.KindBlock, enc))
		}
	}
	late := early.AddDate(1, 0, 0)
	pages = append(pages,
		page(t, "https://squat.example/", late, damaged...),
		page(t, "https://squat.example/many", late, slices.Repeat(damaged[6:7], MaxPageProblems+5)...),
		page(t, "https://example.org/stolen", late, stolen...),
		page(t, "https://example.org/genuine", early, genuine...),
		pages[1], // a capture seen twice: redundant
		page(t, "https://example.org/truncated", late, []byte("<!-- lazarus block 1 TFpSQgEBAAAA")),
	)
	cases = append(cases, scanCase{name: "owner key", opener: a.Opener, pages: pages,
		covers: []string{"accepted", "redundant", "rejected", "foreign", "unsigned", "omitted", "manifests", "conflict"}})

	pass := []byte("correct horse battery staple")
	popts := &keys.PassphraseOptions{WorkFactor: 10}
	ps1, _ := keys.PassphraseSealer(pass, keys.NewSalt(), popts)
	ps2, _ := keys.PassphraseSealer(pass, keys.NewSalt(), popts)
	_, _, p1 := encodeAll(t, in[0], ps1, fixed(2, 2, 4096))
	_, _, p2 := encodeAll(t, in[1], ps2, fixed(2, 2, 4096))
	var ppages []Page
	for i := range 3 {
		ppages = append(ppages, page(t, fmt.Sprintf("https://example.org/junk%d", i), late, junkSaltBlock(t, ps1.Signer.KeyID())))
	}
	for s := range p1 {
		for i, enc := range p1[s] {
			ppages = append(ppages, page(t, fmt.Sprintf("https://example.org/a%d-%d", s, i), early, armor(t, htmlblock.KindBlock, enc)))
		}
	}
	for s := range p2 { // the second salt, seen on many paths: tried early
		for i, enc := range p2[s] {
			ppages = append(ppages, page(t, fmt.Sprintf("https://example.org/b%d-%d", s, i), early, armor(t, htmlblock.KindBlock, enc)))
		}
	}
	popener := func() *keys.Opener {
		o, err := keys.PassphraseOpener(pass, popts)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	cases = append(cases, scanCase{name: "passphrase", opener: popener, pages: ppages,
		covers: []string{"accepted", "rejected", "foreign", "parked", "released"}})

	var upages []Page
	for s := range ub {
		for i, enc := range ub[s] {
			upages = append(upages, page(t, fmt.Sprintf("https://example.org/u%d-%d", s, i), early, armor(t, htmlblock.KindBlock, enc)))
		}
	}
	cases = append(cases, scanCase{name: "unsigned allowed", opener: func() *keys.Opener { return &keys.Opener{Identities: a.Opener().Identities} }, opts: Options{AllowUnsigned: true}, pages: upages,
		covers: []string{"accepted"}})
	return cases
}

func armor(t testing.TB, kind htmlblock.Kind, payload []byte) []byte {
	t.Helper()
	c, err := htmlblock.Armor(kind, payload)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// page is a page at url, captured at when, carrying the comments (which
// may be damaged) as they are.
func page(t testing.TB, url string, when time.Time, comments ...[]byte) Page {
	t.Helper()
	p := []byte("<html><body><p>x</p>\n")
	p = append(p, bytes.Join(comments, []byte("\n"))...)
	p = append(p, "\n</body></html>\n"...)
	return Page{Bytes: p, From: Origin{Source: "test", URL: url, Time: when}}
}

// outcome is everything an assembler tells about a run: each page's
// report, Settle's, the status and the extracted data segments.
type outcome struct {
	reports []PageReport
	settle  PageReport
	status  []SegmentStatus
	trees   []map[string][]byte
}

// run adds the case's pages with add and collects the outcome.
func (c scanCase) run(t *testing.T, add func(*Assembler, []Page) []PageReport) outcome {
	t.Helper()
	asm, err := NewAssembler(c.opener(), Options{AllowUnsigned: c.opts.AllowUnsigned, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer asm.Close()
	o := outcome{reports: add(asm, c.pages)}
	o.settle = asm.Settle()
	o.status = asm.Status()
	for _, st := range o.status {
		if st.Done() && st.Layout.Kind == block.KindData {
			dir := t.TempDir()
			if _, err := asm.Extract(st.Layout, dir, bundle.ExtractOptions{}); err != nil {
				t.Fatal(err)
			}
			o.trees = append(o.trees, readTree(t, dir))
		}
	}
	return o
}

// referenceAddPage is AddPage as it was before Scan existed, one comment
// after the other: the oracle AddPage, Scan and AddScanned are held to.
func referenceAddPage(a *Assembler, page []byte, from Origin) PageReport {
	rep := PageReport{From: from}
	for f := range htmlblock.All(page) {
		err := f.Err
		if err == nil {
			err = referenceAddFound(a, f, &rep)
		}
		if err != nil {
			rep.problem(fmt.Errorf("comment at byte %d: %w", f.Offset, err))
		}
	}
	rep.Released = a.salts.afterPage(a)
	return rep
}

func referenceAddFound(a *Assembler, f htmlblock.Found, rep *PageReport) error {
	switch f.Kind {
	case htmlblock.KindManifest:
		if s, err := manifest.Parse(f.Payload); err == nil && a.salts.park(s.KeyID, s.Salt, itemManifest, f.Payload, rep.From) {
			rep.Parked++
			return nil
		}
		m, err := a.AddManifest(f.Payload)
		if err != nil {
			rep.Rejected++
			return err
		}
		rep.Manifests = append(rep.Manifests, m)
		return nil
	case htmlblock.KindBlock:
		o, err := a.Add(f.Payload, rep.From)
		rep.count(o)
		return err
	}
	return fmt.Errorf("unexpected comment kind %q", f.Kind)
}

func addEachPageAsBefore(asm *Assembler, pages []Page) []PageReport {
	var reps []PageReport
	for _, p := range pages {
		reps = append(reps, referenceAddPage(asm, p.Bytes, p.From))
	}
	return reps
}

func addEachPage(asm *Assembler, pages []Page) []PageReport {
	var reps []PageReport
	for _, p := range pages {
		reps = append(reps, asm.AddPage(p.Bytes, p.From))
	}
	return reps
}

// scanAllAtOnce scans every page on its own goroutine, then adds the
// results in page order.
func scanAllAtOnce(asm *Assembler, pages []Page) []PageReport {
	scanned := make([]*Scanned, len(pages))
	var wg sync.WaitGroup
	for i, p := range pages {
		wg.Go(func() { scanned[i] = asm.Scan(p.Bytes, p.From) })
	}
	wg.Wait()
	var reps []PageReport
	for _, s := range scanned {
		reps = append(reps, asm.AddScanned(s))
	}
	return reps
}

func addPagesWith(workers int) func(*Assembler, []Page) []PageReport {
	return func(asm *Assembler, pages []Page) []PageReport {
		in := make(chan Page)
		go func() {
			defer close(in)
			for _, p := range pages {
				in <- p
			}
		}()
		var reps []PageReport
		err := asm.AddPages(context.Background(), workers, in, func(_ Page, r PageReport) error {
			reps = append(reps, r)
			return nil
		})
		if err != nil {
			panic(err)
		}
		return reps
	}
}

// TestAddScannedMatchesAddPage: AddPage, and scanning pages concurrently
// then adding the results in page order, give exactly the reports,
// Settle report, segment status and extracted files of AddPage as it was
// (one comment after the other), in every key mode and on damaged input.
func TestAddScannedMatchesAddPage(t *testing.T) {
	for _, c := range scanCases(t) {
		t.Run(c.name, func(t *testing.T) {
			want := c.run(t, addEachPageAsBefore)
			if len(want.status) == 0 || len(want.trees) == 0 {
				t.Fatalf("fixture rebuilt nothing: %+v", want.status)
			}
			n := coverage(append(want.reports, want.settle))
			for _, what := range c.covers {
				if n[what] == 0 {
					t.Errorf("fixture shows no %s: %v", what, n)
				}
			}
			for name, add := range map[string]func(*Assembler, []Page) []PageReport{
				"AddPage":             addEachPage,
				"Scan on goroutines":  scanAllAtOnce,
				"AddPages, 1 worker":  addPagesWith(1),
				"AddPages, 4 workers": addPagesWith(4),
			} {
				got := c.run(t, add)
				for i := range max(len(got.reports), len(want.reports)) {
					if i >= len(got.reports) || i >= len(want.reports) || !reflect.DeepEqual(got.reports[i], want.reports[i]) {
						t.Fatalf("%s: page %d report differs:\ngot  %+v\nwant %+v", name, i, at(got.reports, i), at(want.reports, i))
					}
				}
				if !reflect.DeepEqual(got.settle, want.settle) || !reflect.DeepEqual(got.status, want.status) || !reflect.DeepEqual(got.trees, want.trees) {
					t.Fatalf("%s: settle, status or files differ:\ngot  %+v %+v\nwant %+v %+v", name, got.settle, got.status, want.settle, want.status)
				}
			}
		})
	}
}

// coverage counts what the reports (and what they released) show.
func coverage(reps []PageReport) map[string]int {
	n := map[string]int{}
	for _, r := range reps {
		n["accepted"] += r.Accepted
		n["redundant"] += r.Redundant
		n["rejected"] += r.Rejected
		n["foreign"] += r.Foreign
		n["unsigned"] += r.Unsigned
		n["parked"] += r.Parked
		n["omitted"] += r.Omitted
		n["manifests"] += len(r.Manifests)
		n["released"] += len(r.Released)
		for _, err := range r.Problems {
			if errors.Is(err, ErrConflict) {
				n["conflict"]++
			}
		}
		for k, v := range coverage(r.Released) {
			n[k] += v
		}
	}
	return n
}

func at(reps []PageReport, i int) any {
	if i < len(reps) {
		return reps[i]
	}
	return "(none)"
}

// TestScanConcurrentWithAdd scans the same pages on several goroutines
// while others add pages to the same assembler (run it with -race).
func TestScanConcurrentWithAdd(t *testing.T) {
	c := scanCases(t)[0]
	asm, _ := NewAssembler(c.opener(), Options{TempDir: t.TempDir()})
	defer asm.Close()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i, p := range c.pages {
				s := asm.Scan(p.Bytes, p.From)
				if (i+w)%2 == 0 {
					asm.AddScanned(s)
				} else {
					asm.AddPage(p.Bytes, p.From)
				}
			}
		})
	}
	wg.Wait()
	if st := asm.Status(); len(st) == 0 {
		t.Fatal("nothing added")
	}
}

// TestScannedByAnotherAssembler: a Scanned is for the assembler that
// made it (its signatures were checked with that assembler's key).
func TestScannedByAnotherAssembler(t *testing.T) {
	a, b := testKeys(t)
	mine, _ := NewAssembler(a.Opener(), Options{TempDir: t.TempDir()})
	defer mine.Close()
	theirs, _ := NewAssembler(b.Opener(), Options{TempDir: t.TempDir()})
	defer theirs.Close()
	defer func() {
		if recover() == nil {
			t.Fatal("AddScanned took another assembler's scan")
		}
	}()
	theirs.AddScanned(mine.Scan([]byte("<!-- lazarus block 1 TFpSQgEB -->"), Origin{}))
}

// TestScannedStaysSmall: a page of a million damaged comments (or
// comments failing their checks) scans into a few counters, not a
// million errors, and reports what AddPage reports.
func TestScannedStaysSmall(t *testing.T) {
	a, b := testKeys(t)
	_, _, fb := encodeAll(t, Input{Name: "app", Entries: []bundle.Entry{memEntry("x", []byte("x"), 0o644)}},
		&keys.Sealer{Cipher: keys.CipherX25519, Recipients: a.Server().Sealer().Recipients, Signer: b.Signer()}, fixed(1, 1, 64))
	foreign := armor(t, htmlblock.KindBlock, fb[0][0])
	for _, tc := range []struct {
		name    string
		comment []byte
		n       int
	}{
		{"damaged", []byte("<!-- lazarus block 1\n"), 1 << 20},
		{"not a block", []byte("<!-- lazarus block 1 AAAA -->"), 1 << 20},
		{"foreign key", foreign, 20000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := bytes.Repeat(tc.comment, tc.n)
			asm, _ := NewAssembler(a.Opener(), Options{TempDir: t.TempDir()})
			defer asm.Close()
			s := asm.Scan(page, Origin{})
			if len(s.items) > MaxPageProblems {
				t.Fatalf("%d items kept for %d comments", len(s.items), tc.n)
			}
			direct, _ := NewAssembler(a.Opener(), Options{TempDir: t.TempDir()})
			defer direct.Close()
			got, want := asm.AddScanned(s), referenceAddPage(direct, page, Origin{})
			if !reflect.DeepEqual(got, want) || got.Omitted != tc.n-MaxPageProblems {
				t.Fatalf("got %+v\nwant %+v", got, want)
			}
		})
	}
}
