package caddymodule

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// Limits on the bundle files the handler reads.
const (
	maxCurrentBytes = 256
	maxPlanBytes    = 64 << 20
	maxBlockBytes   = 16 << 20
)

// ErrNoGeneration means the bundle has no usable current generation.
var ErrNoGeneration = errors.New("no current lazarus generation in bundle")

// blockFile is one block of a generation in the bundle.
type blockFile struct {
	ref  manifest.BlockRef
	key  string // storage key
	size int64  // raw bytes
}

// generation is one loaded bundle generation. It is immutable once built,
// except for the live placement state its placer keeps.
type generation struct {
	id         string
	time       time.Time
	previous   string // the generation this one replaced, "" for the first
	site       string // the site URL its manifest names
	keyID      string // the key id that signed its manifest, hex ("" unsigned)
	src        *bundleStore
	manifest   []byte // armored manifest comment
	manifestOn map[string]bool
	pages      map[string][]int // URL path → indices into blocks
	blocks     []blockFile      // sorted by segment, stripe, shard
	segments   map[string]manifest.Segment
	placer     *placer // blocks for pages the plan does not name
}

type planFile struct {
	Manifest []string            `json:"manifest"`
	Pages    map[string][]string `json:"pages"`
}

// bundleStore reads the bundle layout written by `lazarus inject --bundle`
// (see injector/bundledir.go) from a Caddy storage: a file system
// storage rooted at the bundle directory, or Caddy's configured storage
// for generations the handler builds itself.
type bundleStore struct {
	st     certmagic.Storage
	prefix string // "" or ending in "/"
	// trust, when not nil, is what generations and blocks read are
	// checked against before they are served (a self-building handler's
	// key and site).
	trust *trust
}

func (b *bundleStore) String() string {
	return strings.TrimSuffix(fmt.Sprint(b.st)+"/"+b.prefix, "/")
}

// load reads the value at key below the prefix, refusing values over
// limit unread (see loadLimited).
func (b *bundleStore) load(ctx context.Context, key string, limit int64) ([]byte, error) {
	return loadLimited(ctx, b.st, b.prefix+key, limit)
}

// current returns the generation id named by the bundle's current key.
func (b *bundleStore) current(ctx context.Context) (string, error) {
	v, err := b.load(ctx, "current", maxCurrentBytes)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoGeneration, err)
	}
	id := strings.TrimSpace(string(v))
	if _, err := manifest.ParseID(id); err != nil {
		return "", fmt.Errorf("%w: bad current %q: %w", ErrNoGeneration, id, err)
	}
	return id, nil
}

// generations lists the generation ids the bundle holds.
func (b *bundleStore) generations(ctx context.Context) ([]string, error) {
	dir := b.prefix + "generations"
	keys, err := b.st.List(ctx, dir, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	ids := make([]string, 0, len(keys))
	for _, k := range keys {
		ids = append(ids, strings.TrimPrefix(k, dir+"/"))
	}
	return ids, err
}

// previous returns the id of the generation id replaced, "" for none.
func (b *bundleStore) previous(ctx context.Context, id string) (string, error) {
	env, err := b.load(ctx, "generations/"+id+"/manifest", manifest.MaxEnvelope)
	if err != nil {
		return "", fmt.Errorf("generation %s: %w", id, err)
	}
	signed, err := manifest.Parse(env)
	if err != nil {
		return "", fmt.Errorf("generation %s: %w", id, err)
	}
	if p := signed.Manifest.Previous; p != nil {
		return p.String(), nil
	}
	return "", nil
}

// pruneExcept deletes the entries directly under dir (keys and their
// subtrees) whose names are not in keep.
func pruneExcept(ctx context.Context, st certmagic.Storage, dir string, keep ...string) error {
	keys, err := st.List(ctx, dir, false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	for _, k := range keys {
		if slices.Contains(keep, strings.TrimPrefix(k, dir+"/")) {
			continue
		}
		if err := st.Delete(ctx, k); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// loadGeneration reads generation id: manifest, plan and the index of its
// blocks (not their contents).
func (b *bundleStore) loadGeneration(ctx context.Context, id string) (*generation, error) {
	dir := "generations/" + id + "/"
	env, err := b.load(ctx, dir+"manifest", manifest.MaxEnvelope)
	if err != nil {
		return nil, fmt.Errorf("generation %s: %w", id, err)
	}
	signed, err := manifest.Parse(env)
	if err != nil {
		return nil, fmt.Errorf("generation %s: %w", id, err)
	}
	if b.trust != nil {
		if err := b.trust.manifest(signed); err != nil {
			return nil, fmt.Errorf("generation %s: %w", id, err)
		}
	}
	g := &generation{id: id, time: signed.Manifest.Time, site: signed.Manifest.Site, src: b, segments: map[string]manifest.Segment{}}
	for _, s := range signed.Manifest.Segments {
		g.segments[s.Name] = s
	}
	if signed.KeyID != [8]byte{} {
		g.keyID = hex.EncodeToString(signed.KeyID[:])
	}
	if prev := signed.Manifest.Previous; prev != nil {
		g.previous = prev.String()
	}
	if g.manifest, err = codec.ManifestComment(env); err != nil {
		return nil, fmt.Errorf("generation %s: %w", id, err)
	}
	if g.blocks, err = b.indexBlocks(ctx, dir+"blocks", signed.Manifest.Segments); err != nil {
		return nil, fmt.Errorf("generation %s: %w", id, err)
	}
	if len(g.blocks) == 0 {
		return nil, fmt.Errorf("generation %s: %w: no blocks", id, ErrNoGeneration)
	}
	plan, err := b.load(ctx, dir+"plan.json", maxPlanBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("generation %s: %w", id, err)
	}
	if err := g.loadPlan(plan); err != nil {
		return nil, fmt.Errorf("generation %s: %w", id, err)
	}
	return g, nil
}

// loadPlan reads plan.json; none means no fixed placement.
func (g *generation) loadPlan(b []byte) error {
	g.manifestOn = map[string]bool{"/": true}
	g.pages = map[string][]int{}
	if b == nil {
		return nil
	}
	var p planFile
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("plan.json: %w", err)
	}
	for _, u := range p.Manifest {
		g.manifestOn[u] = true
	}
	for u, refs := range p.Pages {
		idx, err := g.resolve(refs)
		if err != nil {
			return fmt.Errorf("plan.json: page %q: %w", u, err)
		}
		g.pages[u] = idx
	}
	return nil
}

// resolve maps block reference strings to indices into g.blocks.
func (g *generation) resolve(refs []string) ([]int, error) {
	idx := make([]int, 0, len(refs))
	for _, s := range refs {
		var ref manifest.BlockRef
		if err := ref.UnmarshalText([]byte(s)); err != nil {
			return nil, err
		}
		i, ok := slices.BinarySearchFunc(g.blocks, ref, func(b blockFile, r manifest.BlockRef) int { return compareRefs(b.ref, r) })
		if !ok {
			return nil, fmt.Errorf("block %s is not in the bundle", s)
		}
		idx = append(idx, i)
	}
	return idx, nil
}

// maxGenerationBlocks bounds the blocks a manifest may name.
const maxGenerationBlocks = 1 << 20

// indexBlocks finds the blocks dir/SEG/S.I of every stripe and shard the
// manifest's segments name, sorted. A generation is used whole or not at
// all: a block missing (a copy still in progress, a listing that lags) is
// an error, so the generation is tried again at the next reload rather
// than served, and placed, without it. Other files under dir (a
// temporary file, a stray copy) are never looked at.
func (b *bundleStore) indexBlocks(ctx context.Context, dir string, segs []manifest.Segment) ([]blockFile, error) {
	total := 0
	for _, s := range segs {
		if s.Stripes < 0 || s.K+s.M <= 0 || s.K+s.M > 1<<16 || s.Stripes > maxGenerationBlocks/(s.K+s.M) {
			return nil, fmt.Errorf("segment %s: %d stripes of %d+%d blocks", s.Name, s.Stripes, s.K, s.M)
		}
		if total += s.Stripes * (s.K + s.M); total > maxGenerationBlocks {
			return nil, fmt.Errorf("more than %d blocks", maxGenerationBlocks)
		}
	}
	out := make([]blockFile, 0, total)
	for _, s := range segs {
		for stripe := range s.Stripes {
			for shard := range s.K + s.M {
				ref := manifest.BlockRef{Segment: s.Name, Stripe: uint32(stripe), Shard: uint16(shard)}
				bf, err := b.statBlock(ctx, dir, ref)
				if err != nil {
					return nil, err
				}
				out = append(out, bf)
			}
		}
	}
	slices.SortFunc(out, func(a, b blockFile) int { return compareRefs(a.ref, b.ref) })
	return out, nil
}

// statBlock finds block ref under dir and checks its size.
func (b *bundleStore) statBlock(ctx context.Context, dir string, ref manifest.BlockRef) (blockFile, error) {
	key := fmt.Sprintf("%s%s/%s/%d.%d", b.prefix, dir, ref.Segment, ref.Stripe, ref.Shard)
	info, err := b.st.Stat(ctx, key)
	if err != nil {
		return blockFile{}, fmt.Errorf("block %s: %w", ref, err)
	}
	if !info.IsTerminal || info.Size <= 0 || info.Size > maxBlockBytes {
		return blockFile{}, fmt.Errorf("bad block %s: size %d", ref, info.Size)
	}
	return blockFile{ref: ref, key: key, size: info.Size}, nil
}

// raw reads block i's bytes.
func (g *generation) raw(ctx context.Context, i int) ([]byte, error) {
	b := g.blocks[i]
	v, err := loadLimited(ctx, g.src.st, b.key, b.size)
	if err != nil {
		return nil, fmt.Errorf("block %s: %w", b.ref, err)
	}
	if int64(len(v)) != b.size {
		return nil, fmt.Errorf("block %s: %d bytes, listed with %d", b.ref, len(v), b.size)
	}
	if t := g.src.trust; t != nil {
		if err := t.block(v, b.ref, g.segments[b.ref.Segment]); err != nil {
			return nil, err
		}
	}
	return v, nil
}

func compareRefs(a, b manifest.BlockRef) int {
	if c := strings.Compare(a.Segment, b.Segment); c != 0 {
		return c
	}
	if a.Stripe != b.Stripe {
		return cmpUint(uint64(a.Stripe), uint64(b.Stripe))
	}
	return cmpUint(uint64(a.Shard), uint64(b.Shard))
}

func cmpUint(a, b uint64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// armoredSize is the number of bytes a raw block of n bytes adds to a page:
// its comment and the newline after it.
func armoredSize(n int64) int64 {
	b64 := (n + 2) / 3 * 4
	lines := (b64 + htmlblock.LineLen - 1) / htmlblock.LineLen
	return int64(len("<!-- lazarus block "+strconv.Itoa(htmlblock.Version)+"\n")) + b64 + lines + int64(len("-->\n"))
}
