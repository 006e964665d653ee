package caddymodule

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

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

// blockFile is one block of a generation on disk.
type blockFile struct {
	ref  manifest.BlockRef
	path string
	size int64 // raw bytes
}

// generation is one loaded bundle generation. It is immutable once built.
type generation struct {
	id         string
	time       time.Time
	manifest   []byte // armored manifest comment
	manifestOn map[string]bool
	pages      map[string][]int // URL path → indices into blocks
	blocks     []blockFile      // sorted by segment, stripe, shard
}

type planFile struct {
	Manifest []string            `json:"manifest"`
	Pages    map[string][]string `json:"pages"`
}

// readCurrent returns the generation id named by bundle/current.
func readCurrent(bundle string) (string, error) {
	b, err := readLimited(filepath.Join(bundle, "current"), maxCurrentBytes)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoGeneration, err)
	}
	id := strings.TrimSpace(string(b))
	if _, err := manifest.ParseID(id); err != nil {
		return "", fmt.Errorf("%w: bad current %q: %w", ErrNoGeneration, id, err)
	}
	return id, nil
}

// loadGeneration reads generation id of the bundle: manifest, plan and
// the index of its block files (not their contents).
func loadGeneration(bundle, id string) (*generation, error) {
	dir := filepath.Join(bundle, "generations", id)
	env, err := readLimited(filepath.Join(dir, "manifest"), manifest.MaxEnvelope)
	if err != nil {
		return nil, fmt.Errorf("generation %s: %w", id, err)
	}
	signed, err := manifest.Parse(env)
	if err != nil {
		return nil, fmt.Errorf("generation %s: %w", id, err)
	}
	g := &generation{id: id, time: signed.Manifest.Time}
	if g.manifest, err = htmlblock.Armor(htmlblock.KindManifest, env); err != nil {
		return nil, fmt.Errorf("generation %s: %w", id, err)
	}
	if g.blocks, err = indexBlocks(filepath.Join(dir, "blocks")); err != nil {
		return nil, fmt.Errorf("generation %s: %w", id, err)
	}
	if len(g.blocks) == 0 {
		return nil, fmt.Errorf("generation %s: %w: no blocks", id, ErrNoGeneration)
	}
	if err := g.loadPlan(filepath.Join(dir, "plan.json")); err != nil {
		return nil, fmt.Errorf("generation %s: %w", id, err)
	}
	return g, nil
}

// loadPlan reads plan.json; a missing plan means no fixed placement.
func (g *generation) loadPlan(path string) error {
	g.manifestOn = map[string]bool{"/": true}
	g.pages = map[string][]int{}
	b, err := readLimited(path, maxPlanBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
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

// indexBlocks lists blocks/SEG/S.I files, sorted.
func indexBlocks(dir string) ([]blockFile, error) {
	segs, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []blockFile
	for _, seg := range segs {
		if !seg.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(dir, seg.Name()))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			b, err := blockEntry(dir, seg.Name(), f)
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		}
	}
	slices.SortFunc(out, func(a, b blockFile) int { return compareRefs(a.ref, b.ref) })
	return out, nil
}

func blockEntry(dir, seg string, f fs.DirEntry) (blockFile, error) {
	var ref manifest.BlockRef
	if err := ref.UnmarshalText([]byte(seg + "/" + strings.Replace(f.Name(), ".", "/", 1))); err != nil {
		return blockFile{}, fmt.Errorf("bad block file %s/%s: %w", seg, f.Name(), err)
	}
	info, err := f.Info()
	if err != nil {
		return blockFile{}, err
	}
	if !info.Mode().IsRegular() || info.Size() == 0 || info.Size() > maxBlockBytes {
		return blockFile{}, fmt.Errorf("bad block file %s/%s: size %d", seg, f.Name(), info.Size())
	}
	return blockFile{ref: ref, path: filepath.Join(dir, seg, f.Name()), size: info.Size()}, nil
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

// readLimited reads a file of at most limit bytes.
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes exceed the limit of %d", path, info.Size(), limit)
	}
	b := make([]byte, info.Size())
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}
