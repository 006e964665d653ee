package codec

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/erasure"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// site is a toy static site: pages by URL and the comments each carries.
type site struct {
	urls     []string
	comments map[string][][]byte
	carriers map[string][]manifest.BlockRef
	next     int
}

func newSite(n int) *site {
	s := &site{comments: map[string][][]byte{}, carriers: map[string][]manifest.BlockRef{}}
	for i := 0; i < n; i++ {
		s.urls = append(s.urls, fmt.Sprintf("/page%d.html", i))
	}
	return s
}

// place encodes a sealed segment and deals its blocks round-robin over the
// pages, so the blocks of one stripe land on distinct pages.
func (s *site) place(t testing.TB, gen Generation, signer *keys.Signer, sealed *Sealed, p erasure.Params) {
	t.Helper()
	err := eachBlock(sealed, gen, p, signer, func(b *block.Block, enc []byte) error {
		c, err := htmlblock.Armor(htmlblock.KindBlock, enc)
		if err != nil {
			return err
		}
		u := s.urls[s.next%len(s.urls)]
		s.next++
		s.comments[u] = append(s.comments[u], c)
		s.carriers[u] = append(s.carriers[u], manifest.BlockRef{Segment: b.Name, Stripe: b.Stripe, Shard: b.Shard})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (s *site) carrierList() []manifest.Carrier {
	var out []manifest.Carrier
	for _, u := range s.urls {
		if refs := s.carriers[u]; len(refs) > 0 {
			out = append(out, manifest.Carrier{URL: u, Blocks: refs})
		}
	}
	return out
}

// pages renders every page with its comments, the manifest on the first.
func (s *site) pages(t testing.TB, manifestComment []byte) map[string][]byte {
	out := map[string][]byte{}
	for i, u := range s.urls {
		cs := s.comments[u]
		if i == 0 {
			cs = append([][]byte{manifestComment}, cs...)
		}
		html := fmt.Sprintf("<!doctype html>\n<html><head><title>%s</title></head>\n<body>\n<p>Page %d</p>\n</body>\n</html>\n", u, i)
		page, err := htmlblock.Insert([]byte(html), cs...)
		if err != nil {
			t.Fatal(err)
		}
		out[u] = page
	}
	return out
}

// packSite packs the inputs as one generation onto a site of n pages and
// returns the pages.
func packSite(t testing.TB, n int, inputs []Input, s *keys.Sealer) map[string][]byte {
	t.Helper()
	st := newSite(n)
	m := &manifest.Manifest{Generation: gen1.ID, Time: gen1.Time, Site: "https://example.org/"}
	list := &manifest.FileList{}
	for _, in := range inputs {
		sealed, err := Seal(in, s, SealOptions{TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		defer sealed.Close()
		p, err := sealed.Params(8192, 1)
		if err != nil {
			t.Fatal(err)
		}
		st.place(t, gen1, s.Signer, sealed, p)
		m.Segments = append(m.Segments, sealed.Segment(gen1, p))
		list.Files = append(list.Files, sealed.Files...)
	}
	list.Carriers = st.carrierList()
	env, ls, err := BuildManifest(m, list, s, SealOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if ls != nil {
		defer ls.Close()
		p, err := ls.Params(8192, 1)
		if err != nil {
			t.Fatal(err)
		}
		st.carriers = map[string][]manifest.BlockRef{} // the listing's own carriers
		st.place(t, gen1, s.Signer, ls, p)
		if env, err = SignWithListing(m, ls, p, st.carrierList(), s); err != nil {
			t.Fatal(err)
		}
	}
	mc, err := htmlblock.Armor(htmlblock.KindManifest, env)
	if err != nil {
		t.Fatal(err)
	}
	if len(mc) > 16<<10 {
		t.Fatalf("manifest comment is %d bytes, over 16 KiB", len(mc))
	}
	return st.pages(t, mc)
}

// restore scans pages, finds the manifest, and extracts every segment it
// names into a fresh directory, checking files against the listing.
func restore(t testing.TB, pages map[string][]byte, o *keys.Opener) (map[string][]byte, *manifest.FileList) {
	t.Helper()
	a, err := NewAssembler(o, Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var m *manifest.Signed
	for _, p := range pages {
		rep := a.AddPage(p, Origin{})
		if len(rep.Manifests) > 0 {
			m = rep.Manifests[0]
		}
	}
	if m == nil {
		t.Fatal("no manifest found")
	}
	list, err := a.Listing(m)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i := range m.Manifest.Segments {
		seg := &m.Manifest.Segments[i]
		if seg.Kind != "data" {
			continue
		}
		l, err := SegmentLayout(m, seg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Extract(l, dir, bundle.ExtractOptions{MaxTarSize: seg.TarSize}); err != nil {
			t.Fatal(err)
		}
	}
	return readTree(t, dir), list
}

// TestPagesRoundTrip: segments packed onto pages, pages damaged the way
// archives damage them, and everything rebuilt from the manifest.
func TestPagesRoundTrip(t *testing.T) {
	a, _ := testKeys(t)
	inputs := []Input{
		{Name: "app", Entries: []bundle.Entry{memEntry("app/index.php", bytes.Repeat([]byte("<?php echo 1; ?>\n"), 3000), 0o644)}},
		{Name: "db", Entries: []bundle.Entry{memEntry("db.sql", bytes.Repeat([]byte("INSERT INTO t VALUES (1);\n"), 2000), 0o600)}},
	}
	pages := packSite(t, 12, inputs, a.Server().Sealer())
	archived := map[string][]byte{}
	for i, u := range slices.Sorted(maps.Keys(pages)) {
		p := pages[u]
		switch i % 3 {
		case 0: // CRLF line endings
			p = bytes.ReplaceAll(p, []byte("\n"), []byte("\r\n"))
		case 1: // Wayback toolbar comments around the body
			p = bytes.Replace(p, []byte("<body>"), []byte("<body><!-- BEGIN WAYBACK TOOLBAR INSERT --><div>toolbar</div><!-- END WAYBACK TOOLBAR INSERT -->"), 1)
		}
		if u == "/page5.html" { // one page lost entirely: its blocks are erasures
			continue
		}
		archived[u] = p
	}
	files, list := restore(t, archived, a.Opener())
	for _, in := range inputs {
		want := readEntry(t, in.Entries[0])
		if !bytes.Equal(files[in.Entries[0].Name], want) {
			t.Fatalf("%s differs after the round trip", in.Entries[0].Name)
		}
	}
	if len(list.Files) != 2 || list.Files[0].SHA256 == nil || len(list.Carriers) == 0 {
		t.Fatalf("listing incomplete: %+v", list)
	}
}

// TestLargeListingTravelsAsSegment: thousands of files overflow the 16 KiB
// manifest comment; the listing moves into the "_listing" segment and
// recovery still finds it.
func TestLargeListingTravelsAsSegment(t *testing.T) {
	a, _ := testKeys(t)
	var entries []bundle.Entry
	for i := 0; i < 3000; i++ {
		entries = append(entries, memEntry(fmt.Sprintf("app/vendor/package-%04d/src/Something%04d.php", i/10, i), []byte(fmt.Sprint(i)), 0o644))
	}
	pages := packSite(t, 30, []Input{{Name: "app", Entries: entries}}, a.Server().Sealer())
	var sawListing bool
	for _, p := range pages {
		for f := range htmlblock.All(p) {
			if f.Kind == htmlblock.KindManifest {
				s, err := manifest.Parse(f.Payload)
				if err != nil {
					t.Fatal(err)
				}
				sawListing = s.Manifest.Listing.Segment == ListingSegment && len(s.Manifest.Listing.Carriers) > 0
			}
		}
	}
	if !sawListing {
		t.Fatal("listing did not move into its own segment")
	}
	files, list := restore(t, pages, a.Opener())
	if len(files) != 3000 || len(list.Files) != 3000 {
		t.Fatalf("restored %d files, listing has %d", len(files), len(list.Files))
	}
	if !strings.HasPrefix(list.Files[0].Path, "app/vendor/") {
		t.Fatalf("listing: %+v", list.Files[0])
	}
}

func readEntry(t testing.TB, e bundle.Entry) []byte {
	rc, err := e.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var buf bytes.Buffer
	buf.ReadFrom(rc)
	return buf.Bytes()
}
