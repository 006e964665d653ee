package main

import (
	"os"
	"path/filepath"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// ciphertextOf is the ciphertext of the generation an inject reported:
// every segment's, unchanged ones included.
func ciphertextOf(rep *injector.Report) int64 {
	var n int64
	for _, s := range rep.Segments {
		n += s.Ciphertext
	}
	return n
}

// pageBytes measures the site directory's pages against what they
// served at launch (srv's first versions, without Lazarus comments):
// every byte added, and of them what generation gen's own blocks and
// manifest take (every byte added but the comments of other
// generations: a block belongs to gen when its segment version is one of
// gen's manifest's).
func pageBytes(st *site, dir string, srv served, gen string) (own, total int64, err error) {
	type comment struct {
		gen  string // a manifest's generation
		seg  manifest.Digest
		size int64
	}
	var cs []comment
	segs := map[manifest.Digest]bool{}
	for _, p := range st.Pages {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p.File)))
		if err != nil {
			return 0, 0, err
		}
		total += int64(len(b) - len(srv[p.URL][0].Body))
		for _, f := range htmlblock.Scan(b) {
			c := comment{size: int64(f.End - f.Offset)}
			switch {
			case f.Err != nil:
			case f.Kind == htmlblock.KindManifest:
				if m, err := manifest.Parse(f.Payload); err == nil {
					c.gen = m.Manifest.Generation.String()
					if c.gen == gen {
						for _, s := range m.Manifest.Segments {
							segs[s.ID] = true
						}
					}
				}
			case f.Kind == htmlblock.KindBlock:
				if bl, err := block.Parse(f.Payload); err == nil {
					c.seg = bl.SegmentID
				}
			}
			cs = append(cs, c)
		}
	}
	other := int64(0)
	for _, c := range cs {
		if c.gen != gen && !segs[c.seg] {
			other += c.size
		}
	}
	return total - other, total, nil
}
