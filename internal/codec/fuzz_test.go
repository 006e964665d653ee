package codec

import (
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
)

// FuzzAddPage: any page bytes — damaged captures of real carrier pages
// included — never panic the assembler, and the report accounts for every
// Lazarus comment on the page: each is accepted, redundant, a verified
// manifest, or a problem.
func FuzzAddPage(f *testing.F) {
	a, _ := testKeys(f)
	in := Input{Name: "app", Entries: []bundle.Entry{memEntry("a.txt", []byte("hello lazarus"), 0o644)}}
	pages := packSite(f, 3, []Input{in}, a.Server().Sealer())
	for _, p := range pages {
		f.Add(p)
	}
	f.Add([]byte("<!-- lazarus block 1 TFpSQgEB -->"))
	f.Add([]byte("<!-- lazarus manifest 1 TFpSTQE= -->"))
	f.Fuzz(func(t *testing.T, page []byte) {
		asm, err := NewAssembler(a.Opener(), Options{TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		defer asm.Close()
		rep := asm.AddPage(page, Origin{})
		found, damaged := 0, 0
		for f := range htmlblock.All(page) {
			found++
			if f.Err != nil {
				damaged++
			}
		}
		if rep.Accepted+rep.Redundant+rep.Rejected+len(rep.Manifests)+damaged != found {
			t.Fatalf("report %+v does not account for %d comments (%d damaged)", rep, found, damaged)
		}
		if len(rep.Problems) != rep.Rejected+damaged {
			t.Fatalf("%d problems for %d rejected and %d damaged comments", len(rep.Problems), rep.Rejected, damaged)
		}
		for _, st := range asm.Status() {
			if st.Complete > st.Stripes {
				t.Fatalf("more stripes complete than exist: %+v", st)
			}
		}
	})
}
