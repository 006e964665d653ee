package history

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Index is a loaded history.
type Index struct {
	// Records are the page versions by Digest (the SHA-1). A digest
	// recorded more than once (by two instances, or by a batch and a
	// key) keeps its earliest record (see Earlier).
	Records map[string]Record
	// Manifests are the signed manifest envelopes by generation id.
	// Load checks that each parses and names its generation; verifying
	// its signature needs the owner's key.
	Manifests map[string][]byte
	// Skipped counts what was left out as damaged: lines that are not
	// valid records of this Version, values that cannot be read or pass
	// MaxValueBytes, manifests that do not parse or name another
	// generation.
	Skipped int
	// Truncated is set when a limit (MaxRecords, MaxManifests,
	// MaxTotalBytes) stopped loading; what was read before is kept.
	Truncated bool

	urls    map[string][]string // URL → digests, oldest first
	digests Digests
}

// Lookup returns the record of a digest as a listing spells it (see
// ParseDigest), of either algorithm.
func (ix *Index) Lookup(listed string) (Record, bool) {
	return ix.digests.Lookup(ix.Records, listed)
}

// Digests maps every digest a set of records is known by, of either
// algorithm (Record.Digests), to the record's Digest: the key of the
// map of records by Digest it indexes.
type Digests map[Digest]string

// NewDigests indexes the digests of records (by Digest). A SHA-256 two
// records claim (a damaged history: one sum, two SHA-1s) stays with the
// earlier.
func NewDigests(records map[string]Record) Digests {
	all := make([]Record, 0, len(records))
	for _, rec := range records {
		all = append(all, rec)
	}
	slices.SortFunc(all, cmpTime)
	ds := make(Digests, len(all))
	for i := range all {
		for _, d := range all[i].Digests() {
			if _, ok := ds[d]; !ok {
				ds[d] = all[i].Digest
			}
		}
	}
	return ds
}

// Lookup returns the record in records (by Digest) of a digest as a
// listing spells it; false if it does not parse (an unknown digest) or
// is not indexed.
func (ds Digests) Lookup(records map[string]Record, listed string) (Record, bool) {
	d, ok := ParseDigest(listed)
	if !ok {
		return Record{}, false
	}
	key, ok := ds[d]
	if !ok {
		return Record{}, false
	}
	rec, ok := records[key]
	return rec, ok
}

// Versions returns the recorded versions of the page at url, oldest
// first. A page whose body changes on every request (a CSRF token) has
// more versions than were recorded (the module keeps the newest few per
// URL): its versions still tell which blocks the page carried when.
func (ix *Index) Versions(url string) []Record {
	out := make([]Record, 0, len(ix.urls[url]))
	for _, d := range ix.urls[url] {
		out = append(out, ix.Records[d])
	}
	return out
}

// Load reads the history in st: every manifest under manifests/ and every
// record under records/ (batches records/*.jsonl and single versions
// records/*/*.json). It is tolerant of damage (see Index.Skipped) and
// bounded (see Index.Truncated); an error means the history could not be
// listed at all.
func Load(ctx context.Context, st Store) (*Index, error) {
	l := &loader{st: st, ix: &Index{Records: map[string]Record{}, Manifests: map[string][]byte{}}, intern: map[string]string{}}
	if err := l.manifests(ctx); err != nil {
		return nil, err
	}
	if err := l.records(ctx); err != nil {
		return nil, err
	}
	l.index()
	return l.ix, nil
}

// limits are the bounds Load applies (tests lower them).
var limits = struct {
	records, manifests int
	total              int64
}{MaxRecords, MaxManifests, MaxTotalBytes}

type loader struct {
	st     Store
	ix     *Index
	bytes  int64
	intern map[string]string // generation ids and block references, kept once
}

// list returns the sorted keys under dir; a missing dir has none.
func (l *loader) list(ctx context.Context, dir string) ([]string, error) {
	keys, err := l.st.List(ctx, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing history %s: %w", dir, err)
	}
	slices.Sort(keys)
	return keys, nil
}

// get reads one value, counting it toward MaxTotalBytes; ok is false if
// it is skipped (unreadable, too large) or loading must stop.
func (l *loader) get(ctx context.Context, key string) ([]byte, bool) {
	if l.ix.Truncated {
		return nil, false
	}
	v, err := l.st.Get(ctx, key)
	if err != nil || len(v) > MaxValueBytes {
		l.ix.Skipped++
		return nil, false
	}
	if l.bytes += int64(len(v)); l.bytes > limits.total {
		l.ix.Truncated = true
		return nil, false
	}
	return v, true
}

func (l *loader) manifests(ctx context.Context) error {
	keys, err := l.list(ctx, manifestsDir)
	if err != nil {
		return err
	}
	for _, key := range keys {
		if err := ctx.Err(); err != nil {
			return err
		}
		gen := path.Base(key)
		if !validGeneration(gen) {
			continue // not ours: a temporary or foreign file
		}
		if len(l.ix.Manifests) >= limits.manifests {
			l.ix.Truncated = true
			return nil
		}
		env, ok := l.get(ctx, key)
		if !ok {
			continue
		}
		if checkManifest(gen, env) != nil {
			l.ix.Skipped++
			continue
		}
		l.ix.Manifests[gen] = env
	}
	return nil
}

// records reads records/*.jsonl, records/*.json and, one level down,
// records/*/*.json(l).
func (l *loader) records(ctx context.Context) error {
	keys, err := l.list(ctx, recordsDir)
	if err != nil {
		return err
	}
	for _, key := range keys {
		if err := ctx.Err(); err != nil {
			return err
		}
		if l.ix.Truncated {
			return nil
		}
		if isRecordValue(key) {
			l.read(ctx, key)
			continue
		}
		sub, err := l.list(ctx, key)
		if err != nil {
			l.ix.Skipped++
			continue
		}
		for _, k := range sub {
			if isRecordValue(k) {
				l.read(ctx, k)
			}
		}
	}
	return nil
}

func isRecordValue(key string) bool {
	return strings.HasSuffix(key, ".jsonl") || strings.HasSuffix(key, ".json")
}

// read adds the records of one value.
func (l *loader) read(ctx context.Context, key string) {
	v, ok := l.get(ctx, key)
	if !ok {
		return
	}
	recs, skipped := ParseRecords(v)
	l.ix.Skipped += skipped
	for _, rec := range recs {
		if old, ok := l.ix.Records[rec.Digest]; ok {
			rec = Earlier(old, rec)
		} else if len(l.ix.Records) >= limits.records {
			l.ix.Truncated = true
			return
		}
		l.ix.Records[rec.Digest] = l.shrink(rec)
	}
}

// shrink makes rec share the strings other records repeat.
func (l *loader) shrink(rec Record) Record {
	rec.Manifest = l.once(rec.Manifest)
	if rec.Blocks == nil {
		return rec
	}
	blocks := make(map[string][]string, len(rec.Blocks))
	for gen, refs := range rec.Blocks {
		for i, r := range refs {
			refs[i] = l.once(r)
		}
		blocks[l.once(gen)] = refs
	}
	rec.Blocks = blocks
	return rec
}

func (l *loader) once(s string) string {
	if v, ok := l.intern[s]; ok {
		return v
	}
	if len(l.intern) < 1<<20 {
		l.intern[s] = s
	}
	return s
}

// index lists each URL's versions, oldest first, and indexes every
// record's digests.
func (l *loader) index() {
	l.ix.urls = map[string][]string{}
	l.ix.digests = NewDigests(l.ix.Records)
	for d, rec := range l.ix.Records {
		l.ix.urls[rec.URL] = append(l.ix.urls[rec.URL], d)
	}
	for _, ds := range l.ix.urls {
		slices.SortFunc(ds, func(a, b string) int {
			return cmpTime(l.ix.Records[a], l.ix.Records[b])
		})
	}
}

func cmpTime(a, b Record) int {
	if c := a.Time.Compare(b.Time); c != 0 {
		return c
	}
	return strings.Compare(a.Digest, b.Digest)
}
