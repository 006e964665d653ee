package injector

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/codec"
)

// plainHashes returns the encodings of SHA-256(b) a JSON state could hold.
func plainHashes(b []byte) []string {
	h := sha256.Sum256(b)
	return []string{hex.EncodeToString(h[:]), base64.StdEncoding.EncodeToString(h[:])}
}

// checkNoPlainHashes fails if the state names a plain hash field or holds
// SHA-256(secret).
func checkNoPlainHashes(t *testing.T, stateDir string, secret []byte) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(stateDir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(plainHashes(secret), `"sha256"`, `"tar_hash"`) {
		if strings.Contains(string(raw), s) {
			t.Errorf("state.json holds %s, a plain hash of the dump output", s)
		}
	}
}

// TestDumpHashesKeyed: in every mode, two runs with the same dump output
// make one generation, and state.json holds no plain SHA-256 of the
// output (sha256("hunter2") is one guess away); a changed output makes a
// new generation.
func TestDumpHashesKeyed(t *testing.T) {
	modes := map[string]func(o *Options){
		"server key":     func(o *Options) {},
		"passphrase":     func(o *Options) { o.ServerKey, o.Passphrase, o.PassphraseWorkFactor = nil, []byte("correct horse"), 10 },
		"public":         func(o *Options) { o.ServerKey, o.Public = nil, true },
		"public, signed": func(o *Options) { o.Public = true },
	}
	for name, mode := range modes {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, 6, 2)
			secret := filepath.Join(f.dir, "secret")
			f.write(t, "secret", "hunter2")
			o := f.options()
			o.Dumps = []Dump{{Name: "db", Command: "cat " + secret}}
			mode(&o)
			first, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			checkNoPlainHashes(t, o.StateDir, []byte("hunter2"))
			again, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if again.New || again.Generation != first.Generation {
				t.Errorf("unchanged dump made generation %s (new=%v) after %s", again.Generation, again.New, first.Generation)
			}
			f.write(t, "secret", "hunter3")
			changed, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if !changed.New {
				t.Error("changed dump made no new generation")
			}
			checkNoPlainHashes(t, o.StateDir, []byte("hunter3"))
		})
	}
}

// TestStateKeyFile: a keyless public run keeps its random state key in
// the state directory, mode 0600, and reuses it; a dry run saves none; a
// damaged one is an error, not a silent new key.
func TestStateKeyFile(t *testing.T) {
	f := newFixture(t, 4, 2)
	o := f.options()
	o.ServerKey, o.Public, o.DryRun = nil, true, true
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(o.StateDir, stateKeyFile)); !os.IsNotExist(err) {
		t.Fatalf("a dry run saved a state key: %v", err)
	}
	o.DryRun = false
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(o.StateDir, stateKeyFile)
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("state key: %v, mode %v; want mode 0600", err, info.Mode())
	}
	key, _ := os.ReadFile(path)
	if res, err := Run(context.Background(), o); err != nil || res.New {
		t.Fatalf("second run: %+v, %v; want no new generation", res, err)
	}
	if again, _ := os.ReadFile(path); string(again) != string(key) {
		t.Fatal("state key replaced")
	}
	os.WriteFile(path, []byte("xyz\n"), 0o600)
	if _, err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("damaged state key: %v", err)
	}
}

// TestStateV1Migrates: a version 1 state.json (plain SHA-256 of dump
// outputs and segment tars) still works: the unchanged dump makes no new
// generation, no page changes, and the state is rewritten as version 2
// without the plain hashes.
func TestStateV1Migrates(t *testing.T) {
	f := newFixture(t, 6, 3)
	f.write(t, "secret", "hunter2")
	o := f.options()
	o.Dumps = []Dump{{Name: "db", Command: "cat " + filepath.Join(f.dir, "secret")}}
	first, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	pages := readPages(t, o.SiteDir)
	writeV1State(t, o)
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.New || res.Generation != first.Generation {
		t.Errorf("migrated state made generation %s (new=%v); want %s kept", res.Generation, res.New, first.Generation)
	}
	for name, b := range readPages(t, o.SiteDir) {
		if pages[name] != b {
			t.Errorf("page %s changed", name)
		}
	}
	st, err := loadState(o.StateDir)
	if err != nil || st.Version != stateVersion {
		t.Fatalf("state after migration: version %d, %v", st.Version, err)
	}
	checkNoPlainHashes(t, o.StateDir, []byte("hunter2"))
}

// readPages returns every file of the site directory by name.
func readPages(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.html"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = string(b)
	}
	return out
}

// writeV1State rewrites the saved state as version 1 wrote it: the plain
// SHA-256 of each segment's tar (computed by sealing the same sources
// again) and of each dump's output, and no keyed hashes.
func writeV1State(t *testing.T, o Options) {
	t.Helper()
	st, err := loadState(o.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := o.sealer(st)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := o.loadStateKey(sealer)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	sources, _, err := o.collect(context.Background(), tmp, st.Dumps, key)
	if err != nil {
		t.Fatal(err)
	}
	cur := st.current()
	for _, src := range sources {
		sealed, err := codec.Seal(src.input, sealer, codec.SealOptions{TempDir: tmp})
		if err != nil {
			t.Fatal(err)
		}
		sealed.Close()
		seg := cur.segment(src.input.Name)
		if seg.TarMAC != key.tarMAC(sealed.TarHash) {
			t.Fatalf("segment %s: resealing gave another tar", seg.Name)
		}
		seg.TarHash = sealed.TarHash
	}
	out, _ := os.ReadFile(filepath.Join(o.StateDir, "..", "secret"))
	sum := sha256.Sum256(out)
	st.Dumps["db"] = dumpInfo{SHA256: sum[:], MTime: st.Dumps["db"].MTime}
	st.Version = 1
	raw, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any // drop the keyed fields version 1 did not have
	json.Unmarshal(raw, &m)
	for _, g := range m["generations"].([]any) {
		for _, s := range g.(map[string]any)["segments"].([]any) {
			delete(s.(map[string]any), "tar_mac")
		}
	}
	delete(m["dumps"].(map[string]any)["db"].(map[string]any), "mac")
	raw, _ = json.MarshalIndent(m, "", "  ")
	if !strings.Contains(string(raw), `"tar_hash": "`+hex.EncodeToString(cur.Segments[0].TarHash[:])) || strings.Contains(string(raw), `"mac"`) {
		t.Fatalf("not a version 1 state:\n%s", raw)
	}
	if err := os.WriteFile(filepath.Join(o.StateDir, "state.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
}
