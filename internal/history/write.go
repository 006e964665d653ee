package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// Add stores each record under its own key, RecordKey: how the Caddy
// module records page versions one at a time, from several instances at
// once. A record already stored under its key is replaced.
func Add(ctx context.Context, st Store, recs ...Record) error {
	for i := range recs {
		line, err := Marshal(&recs[i])
		if err != nil {
			return err
		}
		if err := st.Put(ctx, RecordKey(&recs[i]), append(line, '\n')); err != nil {
			return fmt.Errorf("storing history record of %s: %w", recs[i].URL, err)
		}
	}
	return nil
}

// AddBatch appends to the batch value BatchKey(batch) the records whose
// digest it does not hold yet, or holds without the SHA-256 they have (a
// batch begun by an older version: Load merges the two, see Earlier),
// and returns how many it added; with none to add it writes nothing.
// `lazarus inject` keeps one batch per generation. Lines of the batch it
// cannot read are kept as they are.
func AddBatch(ctx context.Context, st Store, batch string, recs ...Record) (int, error) {
	if batch == "" || strings.ContainsAny(batch, "/\\") || strings.HasPrefix(batch, ".") {
		return 0, fmt.Errorf("history batch name %q: %w", batch, fs.ErrInvalid)
	}
	key := BatchKey(batch)
	old, err := st.Get(ctx, key)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("reading history %s: %w", key, err)
	}
	have := map[string]bool{} // by Digest: whether a record has the SHA-256
	known, _ := ParseRecords(old)
	for _, r := range known {
		have[r.Digest] = have[r.Digest] || r.SHA256 != ""
	}
	out := bytes.Clone(old)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	added := 0
	for i := range recs {
		if sha256, ok := have[recs[i].Digest]; ok && (sha256 || recs[i].SHA256 == "") {
			continue
		}
		line, err := Marshal(&recs[i])
		if err != nil {
			return 0, err
		}
		have[recs[i].Digest] = have[recs[i].Digest] || recs[i].SHA256 != ""
		out = append(append(out, line...), '\n')
		added++
	}
	if added == 0 {
		return 0, nil
	}
	if len(out) > MaxValueBytes {
		return 0, fmt.Errorf("history %s: %d bytes would exceed %d", key, len(out), MaxValueBytes)
	}
	if err := st.Put(ctx, key, out); err != nil {
		return 0, fmt.Errorf("storing history %s: %w", key, err)
	}
	return added, nil
}

// AddManifest stores generation gen's signed manifest envelope at
// ManifestKey(gen), unless it is there already. The envelope must parse
// and name gen.
func AddManifest(ctx context.Context, st Store, gen string, envelope []byte) error {
	if err := checkManifest(gen, envelope); err != nil {
		return err
	}
	key := ManifestKey(gen)
	old, err := st.Get(ctx, key)
	if err == nil && bytes.Equal(old, envelope) {
		return nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading history %s: %w", key, err)
	}
	if err := st.Put(ctx, key, envelope); err != nil {
		return fmt.Errorf("storing history %s: %w", key, err)
	}
	return nil
}

// checkManifest reports whether envelope is a manifest of generation gen
// (parsed, not verified: that needs the owner's key).
func checkManifest(gen string, envelope []byte) error {
	if !validGeneration(gen) {
		return fmt.Errorf("%w: %q is not a generation id", ErrInvalid, gen)
	}
	signed, err := manifest.Parse(envelope)
	if err != nil {
		return fmt.Errorf("%w: manifest of generation %s: %w", ErrInvalid, gen, err)
	}
	if got := signed.Manifest.Generation.String(); got != gen {
		return fmt.Errorf("%w: manifest stored as generation %s is generation %s", ErrInvalid, gen, got)
	}
	return nil
}
