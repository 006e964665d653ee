package injector

import (
	"bytes"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/placement"
	"github.com/lazarus-preserve/lazarus/internal/site"
)

// write encodes the blocks the plan needs and writes the outputs. A
// closed Options.Abort stops it between two files (see aborted).
func (r *run) write() error {
	want, size := r.wantedBlocks()
	store := newBlockStore(r.tmp, size, r.aborted)
	defer store.close()
	if err := r.encodeBlocks(store, want); err != nil {
		return err
	}
	mc, err := codec.ManifestComment(r.gen.Envelope)
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

// wantedBlocks returns the blocks the pages carry, current and old, by
// segment version, and the bytes their comments take.
func (r *run) wantedBlocks() (map[manifest.Digest]*wantedSegment, int64) {
	want := map[manifest.Digest]*wantedSegment{}
	total := int64(0)
	mark := func(s *segmentInfo, ref manifest.BlockRef) {
		w := want[s.ID]
		if w == nil {
			w = &wantedSegment{seg: s, refs: map[manifest.BlockRef]bool{}}
			want[s.ID] = w
		}
		if !w.refs[ref] {
			w.refs[ref] = true
			total += int64(placement.BlockCommentBytes(len(s.Name), s.ShardSize))
		}
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
	return want, total
}

// wantedSegment is a segment version and the blocks of it pages carry.
type wantedSegment struct {
	seg  *segmentInfo
	refs map[manifest.BlockRef]bool
}

// encodeBlocks encodes the wanted blocks from the saved segment versions.
func (r *run) encodeBlocks(store *blockStore, want map[manifest.Digest]*wantedSegment) error {
	for _, id := range slices.SortedFunc(maps.Keys(want), func(a, b manifest.Digest) int { return bytes.Compare(a[:], b[:]) }) {
		if err := r.encodeSegment(store, want[id].seg, want[id].refs, nil); err != nil {
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
	sealed := r.fresh[s.Name]
	if sealed == nil || sealed.ID != s.ID || sealed.Kind != kind {
		// Not sealed by this run: read back, and checked against its id.
		var err error
		if sealed, err = codec.Load(segmentPath(r.o.StateDir, s.ID), s.Name, kind, keys.Cipher(s.Cipher), s.ID); err != nil {
			return err
		}
		defer sealed.Close()
	}
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
// are replaced in one crash-safe batch (see batch); stopped (Abort, an
// error) before the batch is renamed into place, it removes its temporary
// files and changes no page.
func (r *run) writeSite(store *blockStore, mc []byte) error {
	now := r.o.Now()
	for _, dir := range r.pageDirs() {
		removeStaleTemps(dir)
	}
	var b batch
	defer b.abort()
	staged, err := r.stagePages(store, mc, now, &b)
	if err != nil {
		return err
	}
	if err := r.aborted(); err != nil {
		return err
	}
	if err := b.commit(); err != nil {
		return err
	}
	changed := map[string]time.Time{}
	var versions pageVersions // recorded now the batch is in place
	for i, p := range r.pages {
		page := &staged[i]
		if page.res.URL == "" { // not a file of the site
			continue
		}
		if page.changed {
			changed[p.URL] = now
			r.res.Written++
		}
		if r.addPage(page.res) {
			var depth *int
			if p.File != "" && p.Depth >= 0 { // a page of the site, its links walked
				depth = &p.Depth
			}
			r.note(&versions, p.URL, depth, page.sums, page.made)
		}
	}
	r.recordHistory(&versions)
	r.announce()
	if len(changed) == 0 {
		return nil
	}
	n, err := site.UpdateSitemap(r.o.SiteDir, mustURL(r.o.SiteURL), changed)
	if n > 0 {
		r.res.Written++
	}
	return err
}

// pageDirs returns the directories of the site's page files, each once.
func (r *run) pageDirs() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range r.pages {
		if p.File == "" {
			continue
		}
		if dir := filepath.Dir(r.pagePath(p)); !seen[dir] {
			seen[dir] = true
			out = append(out, dir)
		}
	}
	return out
}

func (r *run) pagePath(p pageInfo) string {
	return filepath.Join(r.o.SiteDir, filepath.FromSlash(p.File))
}

// stagedPage is a page as a run leaves it.
type stagedPage struct {
	res     PageReport
	sums    history.Sums // the page's digests as it will be served
	made    time.Time    // when this version was made: now if it changes, else the file's modification time
	changed bool
	tmp     pendingFile // its new version, if changed
}

// stagePage writes the page's new version to a temporary file beside it
// if its comments change, with the notice updated.
func (r *run) stagePage(store *blockStore, p pageInfo, mc []byte, now time.Time) (stagedPage, error) {
	comments, res, err := r.pageComments(store, p.URL, mc)
	if err != nil {
		return stagedPage{}, err
	}
	path := r.pagePath(p)
	old, info, err := readPageFile(path)
	if err != nil {
		return stagedPage{}, err
	}
	page, err := htmlblock.Insert(old, comments...)
	if err != nil {
		return stagedPage{}, err
	}
	if bytes.Equal(page, old) {
		return stagedPage{res: res, sums: history.SumsOf(old), made: info.ModTime()}, nil
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
	res.Changed = true
	tmp, err := writeTemp(path, page, info.Mode().Perm(), &now)
	return stagedPage{res: res, sums: history.SumsOf(page), made: now, changed: true, tmp: tmp}, err
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
