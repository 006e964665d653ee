package injector

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/site"
)

// write encodes the blocks the plan needs and writes the outputs. A
// closed Options.Abort stops it between two files (see aborted).
func (r *run) write() error {
	store, err := newBlockStore(r.tmp, r.aborted)
	if err != nil {
		return err
	}
	defer store.close()
	if err := r.encodeBlocks(store); err != nil {
		return err
	}
	mc, err := htmlblock.Armor(htmlblock.KindManifest, r.gen.Envelope)
	if err != nil {
		return err
	}
	if r.o.SiteDir != "" {
		if err := r.writeSite(store, mc); err != nil {
			return err
		}
	}
	if r.o.SnippetsDir != "" {
		if err := r.writeSnippets(store, mc); err != nil {
			return err
		}
	}
	if r.o.BundleDir != "" {
		return r.writeBundle()
	}
	return nil
}

// aborted returns an error wrapping ErrWriteInterrupted once Options.Abort
// is closed, else nil.
func (r *run) aborted() error {
	select {
	case <-r.o.Abort:
	default:
		return nil
	}
	files := "no file written yet"
	if r.res.Written > 0 {
		files = fmt.Sprintf("%d of its files written", r.res.Written)
	}
	return fmt.Errorf("%w of generation %s (%s, no temporary file left); the state is saved and the next run completes them",
		ErrWriteInterrupted, r.gen.ID, files)
}

// encodeBlocks encodes every block a page carries, current and old, from
// the saved segment versions.
func (r *run) encodeBlocks(store *blockStore) error {
	want := map[manifest.Digest]map[manifest.BlockRef]bool{}
	segs := map[manifest.Digest]*segmentInfo{}
	mark := func(s *segmentInfo, ref manifest.BlockRef) {
		if want[s.ID] == nil {
			want[s.ID] = map[manifest.BlockRef]bool{}
			segs[s.ID] = s
		}
		want[s.ID][ref] = true
	}
	for _, refs := range r.gen.Pages {
		for _, ref := range refs {
			mark(r.gen.segment(ref.Segment), ref)
		}
	}
	for _, refs := range r.old {
		for _, ref := range refs {
			mark(r.oldSegment(ref.SegmentID), ref.Block)
		}
	}
	for _, id := range slices.SortedFunc(maps.Keys(want), func(a, b manifest.Digest) int { return bytes.Compare(a[:], b[:]) }) {
		if err := r.encodeSegment(store, segs[id], want[id], nil); err != nil {
			return err
		}
	}
	return nil
}

func (r *run) encodeSegment(store *blockStore, s *segmentInfo, want map[manifest.BlockRef]bool, raw func(manifest.BlockRef, []byte) error) error {
	kind := block.KindData
	if s.Kind == block.KindListing.String() {
		kind = block.KindListing
	}
	sealed, err := codec.Load(segmentPath(r.o.StateDir, s.ID), s.Name, kind, keys.Cipher(s.Cipher), s.ID)
	if err != nil {
		return err
	}
	defer sealed.Close()
	var sel func(manifest.BlockRef) bool
	if want != nil {
		sel = func(ref manifest.BlockRef) bool { return want[ref] }
	}
	return store.encode(sealed, s, r.sealer.Signer, sel, raw)
}

func (r *run) oldSegment(id manifest.Digest) *segmentInfo {
	for _, g := range r.previousGenerations() {
		for i := range g.Segments {
			if g.Segments[i].ID == id {
				return &g.Segments[i]
			}
		}
	}
	return nil
}

// pageComments returns the comments a page carries, in a fixed order: the
// manifest, the current generation's blocks, previous generations' blocks.
func (r *run) pageComments(store *blockStore, url string, mc []byte) ([][]byte, PageReport, error) {
	res := PageReport{URL: url, Manifest: slices.Contains(r.gen.Manifests, url)}
	var out [][]byte
	if res.Manifest {
		out = append(out, mc)
	}
	for _, ref := range r.gen.Pages[url] {
		c, err := store.comment(segRef{r.gen.segment(ref.Segment).ID, ref})
		if err != nil {
			return nil, res, err
		}
		out = append(out, c)
		res.Blocks++
	}
	for _, ref := range r.old[url] {
		c, err := store.comment(segRef{ref.SegmentID, ref.Block})
		if err != nil {
			return nil, res, err
		}
		out = append(out, c)
		res.Old++
	}
	for _, c := range out {
		res.AddedBytes += len(c) + 1
	}
	return out, res, nil
}

// writeSite rewrites the pages whose comments change; every other page
// keeps its bytes and mtime. Changed pages get a new mtime (and their
// sitemap lastmod), so servers announce the change to crawlers. All pages
// are replaced in one crash-safe batch; stopped (Abort, an error) before
// the batch is renamed into place, it removes its temporary files and
// changes no page.
func (r *run) writeSite(store *blockStore, mc []byte) error {
	now := r.o.Now()
	changed := map[string]time.Time{}
	var b batch
	defer b.abort()
	dirs := map[string]bool{}
	staged := 0
	var versions pageVersions // recorded once the batch is in place
	for i, p := range r.pages {
		r.o.progress(Progress{Phase: PhaseWrite, Name: p.URL, Done: int64(i), Total: int64(len(r.pages))})
		if err := r.aborted(); err != nil {
			return err
		}
		if p.File == "" {
			continue
		}
		path := filepath.Join(r.o.SiteDir, filepath.FromSlash(p.File))
		if dir := filepath.Dir(path); !dirs[dir] {
			dirs[dir] = true
			removeStaleTemps(dir)
		}
		comments, res, err := r.pageComments(store, p.URL, mc)
		if err != nil {
			return err
		}
		page, err := r.stagePage(&b, path, comments, now)
		if err != nil {
			return fmt.Errorf("page %s: %w", p.File, err)
		}
		if res.Changed = page.changed; res.Changed {
			changed[p.URL] = now
			staged++
		}
		if r.addPage(res) {
			r.note(&versions, p.URL, page.bytes, page.made)
		}
	}
	if err := r.aborted(); err != nil {
		return err
	}
	if err := b.commit(); err != nil {
		return err
	}
	r.res.Written += staged
	r.recordHistory(&versions)
	if len(changed) == 0 {
		return nil
	}
	n, err := site.UpdateSitemap(r.o.SiteDir, mustURL(r.o.SiteURL), changed)
	if n > 0 {
		r.res.Written++
	}
	return err
}

// stagedPage is a page as a run leaves it.
type stagedPage struct {
	bytes   []byte    // as it will be served
	made    time.Time // when this version was made: now if it changes, else the file's modification time
	changed bool
}

// stagePage adds the page's new version to the batch if its comments
// change, with the notice updated.
func (r *run) stagePage(b *batch, path string, comments [][]byte, now time.Time) (stagedPage, error) {
	old, err := os.ReadFile(path)
	if err != nil {
		return stagedPage{}, err
	}
	page, err := htmlblock.Insert(old, comments...)
	if err != nil {
		return stagedPage{}, err
	}
	if bytes.Equal(page, old) {
		info, err := os.Stat(path)
		if err != nil {
			return stagedPage{}, err
		}
		return stagedPage{bytes: old, made: info.ModTime()}, nil
	}
	if r.o.Notice != "" {
		// The notice goes in first, so the comments always end up right
		// before </body>, after a notice paragraph Lazarus added.
		text := strings.ReplaceAll(r.o.Notice, "{date}", now.UTC().Format("2006-01-02"))
		noticed, _, err := site.SetNotice(htmlblock.Strip(old), text)
		if err != nil {
			return stagedPage{}, err
		}
		if page, err = htmlblock.Insert(noticed, comments...); err != nil {
			return stagedPage{}, err
		}
	}
	return stagedPage{bytes: page, made: now, changed: true}, b.add(path, page, 0o644, &now)
}

// addPage records a page in the result if it carries or changed anything,
// and reports whether it did.
func (r *run) addPage(res PageReport) bool {
	if res.Changed || res.Blocks+res.Old > 0 || res.Manifest {
		r.res.Pages = append(r.res.Pages, res)
		return true
	}
	return false
}

// writeSnippets writes one include file per page: the comments to add.
func (r *run) writeSnippets(store *blockStore, mc []byte) error {
	for i, p := range r.pages {
		r.o.progress(Progress{Phase: PhaseWrite, Name: p.URL, Done: int64(i), Total: int64(len(r.pages))})
		if err := r.aborted(); err != nil {
			return err
		}
		comments, _, err := r.pageComments(store, p.URL, mc)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		for _, c := range comments {
			buf.Write(c)
			buf.WriteByte('\n')
		}
		name, err := snippetName(p.URL)
		if err != nil {
			return err
		}
		wrote, err := writeIfChanged(filepath.Join(r.o.SnippetsDir, name), buf.Bytes(), 0o644, nil)
		if err != nil {
			return err
		}
		if wrote {
			r.res.Written++
		}
	}
	return nil
}

// snippetName maps a page URL path to its snippet file: "/" → index.html,
// "/a/" → a/index.html, "/a.html" → a.html, "/a" → a.html.
func snippetName(url string) (string, error) {
	p := path.Clean("/" + url)
	if strings.HasSuffix(url, "/") || p == "/" {
		p = path.Join(p, "index.html")
	} else if !strings.HasSuffix(p, ".html") && !strings.HasSuffix(p, ".htm") {
		p += ".html"
	}
	if strings.Contains(p, "/../") || strings.Contains(p, "\x00") {
		return "", fmt.Errorf("page URL %q cannot name a snippet file", url)
	}
	return filepath.FromSlash(strings.TrimPrefix(p, "/")), nil
}
