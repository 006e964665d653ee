package recover_test

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/erasure"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// crafted is a generation made directly with the codec, the way an
// attacker holding server.key (or anyone, unsigned) could make one: any
// entries, any names. Blocks are dealt over pages p0.html, p1.html, …
// (shard i of every stripe on page i mod pages), the manifest on
// index.html.
type crafted struct {
	gen      codec.Generation
	previous *manifest.ID
	pages    int
	shard    int // shard size; defaults to 256
	// tamper, if set, may change each encoded block before it is armored
	// (it gets a copy), or drop it by returning nil.
	tamper func(b *block.Block, enc []byte) []byte
}

// make seals the inputs with s and returns the site's pages by path.
func (c crafted) make(t testing.TB, s *keys.Sealer, inputs ...codec.Input) map[string][]byte {
	t.Helper()
	if c.pages == 0 {
		c.pages = 8
	}
	if c.shard == 0 {
		c.shard = 256
	}
	comments := make([][][]byte, c.pages)
	m := &manifest.Manifest{Generation: c.gen.ID, Time: c.gen.Time, Site: "https://example.org/", Previous: c.previous}
	list := &manifest.FileList{}
	place := func(sealed *codec.Sealed) (erasure.Params, error) {
		p, err := sealed.Params(c.shard, 1)
		if err != nil {
			return p, err
		}
		for b, err := range sealed.Blocks(c.gen, p, s.Signer) {
			if err != nil {
				return p, err
			}
			enc := append([]byte(nil), b.Raw...)
			if c.tamper != nil {
				if enc = c.tamper(b.Block, enc); enc == nil {
					continue
				}
			}
			a, err := codec.BlockComment(enc)
			if err != nil {
				return p, err
			}
			i := int(b.Shard) % c.pages
			comments[i] = append(comments[i], a)
		}
		return p, nil
	}
	for _, in := range inputs {
		sealed, err := codec.Seal(in, s, codec.SealOptions{TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		defer sealed.Close()
		p, err := place(sealed)
		if err != nil {
			t.Fatal(err)
		}
		seg := sealed.Segment(c.gen, p)
		m.Segments = append(m.Segments, seg)
		list.Files = append(list.Files, sealed.Files...)
	}
	env, ls, err := codec.BuildManifest(m, list, s, codec.SealOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if ls != nil {
		defer ls.Close()
		p, err := place(ls)
		if err == nil {
			env, err = codec.SignWithListing(m, ls, p, nil, s)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	mc, err := codec.ManifestComment(env)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	links := ""
	for i := range comments {
		name := fmt.Sprintf("p%d.html", i)
		links += fmt.Sprintf("<a href=%q>%d</a>\n", name, i)
		out[name] = page(t, name, comments[i]...)
	}
	out["index.html"] = page(t, "home"+links, mc)
	return out
}

// page is a small HTML page carrying comments.
func page(t testing.TB, body string, comments ...[]byte) []byte {
	t.Helper()
	p, err := htmlblock.Insert([]byte("<!doctype html>\n<html><body>\n"+body+"\n</body></html>\n"), comments...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fileEntry is a regular file held in memory.
func fileEntry(name, data string) bundle.Entry {
	return bundle.Entry{
		Name: name, Type: bundle.TypeRegular, Mode: 0o644, Size: int64(len(data)),
		ModTime: time.Unix(1700000000, 0),
		Open:    func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader([]byte(data))), nil },
	}
}

// dirEntry is a directory.
func dirEntry(name string) bundle.Entry {
	return bundle.Entry{Name: name, Type: bundle.TypeDir, Mode: 0o755, ModTime: time.Unix(1700000000, 0)}
}

// linkEntry is a symbolic link.
func linkEntry(name, target string) bundle.Entry {
	return bundle.Entry{Name: name, Type: bundle.TypeSymlink, Mode: 0o777, ModTime: time.Unix(1700000000, 0), Linkname: target}
}
