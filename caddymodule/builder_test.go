package caddymodule

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// buildFixture is a server side, keys and a shared storage for handlers
// that build their own generations.
type buildFixture struct {
	src, storage string
	owner        []byte
	build        Build
}

func newBuildFixture(t *testing.T) *buildFixture {
	t.Helper()
	t.Setenv("XDG_DATA_HOME", t.TempDir()) // the builders' local caches
	dir := t.TempDir()
	f := &buildFixture{src: filepath.Join(dir, "src"), storage: filepath.Join(dir, "storage")}
	noise := make([]byte, 30000)
	rand.Read(noise)
	writeFile(t, filepath.Join(f.src, "app/index.php"), noise)
	writeFile(t, filepath.Join(f.src, "app/config.php"), []byte("<?php $db = 'secret';\n"))
	owner, server, err := keys.Generate(true)
	if err != nil {
		t.Fatal(err)
	}
	f.owner = owner.Marshal()
	writeFile(t, filepath.Join(dir, "server.key"), server.Marshal())
	f.build = Build{
		Sources: []Include{{Path: filepath.Join(f.src, "app")}}, Key: filepath.Join(dir, "server.key"),
		SiteURL: "https://example.org/", MaxBlockBytes: 2048, Carriers: 8,
		Dumps: []Dump{{Name: "db", Command: "cat " + filepath.Join(f.src, "db.sql")}},
	}
	writeFile(t, filepath.Join(f.src, "db.sql"), []byte("CREATE TABLE t (x);\n"))
	return f
}

// handler returns a set-up self-building handler on the fixture's storage,
// its clock at *now; its builder is not started.
func (f *buildFixture) handler(t *testing.T, now *time.Time) *Handler {
	t.Helper()
	b := f.build
	h := &Handler{Build: &b, Name: "site", Fill: true, storage: &certmagic.FileStorage{Path: f.storage}, now: func() time.Time { return *now }}
	if err := h.setup(); err != nil {
		t.Fatal(err)
	}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	return h
}

func mustBuild(t *testing.T, h *Handler, want string) {
	t.Helper()
	got, err := h.builder.build(context.Background())
	if err != nil || got != want {
		t.Fatalf("build: %q, %v; want %q", got, err, want)
	}
}

func currentID(t *testing.T, h *Handler) string {
	t.Helper()
	id, err := h.src.current(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestSelfBuilding: a build stores a generation in Caddy storage that the
// handler serves and recovery rebuilds; an unchanged source makes no new
// generation; a change does, and old generations are pruned.
func TestSelfBuilding(t *testing.T) {
	f := newBuildFixture(t)
	now := genTime
	h := f.handler(t, &now)
	if w := serve(t, h, &page{body: html}, "GET", "/", nil); hasComments(w.Body.Bytes()) {
		t.Fatal("blocks before the first build")
	}
	mustBuild(t, h, "new")
	first := currentID(t, h)
	pages := map[string][]byte{}
	now = now.Add(time.Minute)
	linked := []string{"/a", "/b", "/c", "/d", "/e", "/f", "/g", "/h", "/i", "/j", "/k"}
	for _, u := range append([]string{"/"}, linked...) {
		body := html
		if u == "/" { // the site links its pages: the next builds plan for them (carriers.go)
			body = linkedRoot(linked)
		}
		w := serve(t, h, &page{body: body}, "GET", u, nil)
		if !hasComments(w.Body.Bytes()) {
			t.Fatalf("%s: no blocks after the build", u)
		}
		pages[u] = w.Body.Bytes()
	}
	checkRecoverFiles(t, f.owner, pages, map[string]string{"app/index.php": filepath.Join(f.src, "app/index.php"), "db": filepath.Join(f.src, "db.sql")})

	mustBuild(t, h, "skipped") // another build moments after: nothing to do
	now = now.Add(2 * time.Hour)
	mustBuild(t, h, "unchanged")
	if currentID(t, h) != first {
		t.Fatal("unchanged sources made a new generation")
	}
	for i := range 2 {
		writeFile(t, filepath.Join(f.src, "db.sql"), []byte("CREATE TABLE t (x);\nINSERT INTO t VALUES ("+string(rune('1'+i))+");\n"))
		now = now.Add(2 * time.Hour)
		mustBuild(t, h, "new")
	}
	// Expected: the current generation, the previous one and the one
	// before it (riding along on instances not yet switched).
	gens, err := os.ReadDir(filepath.Join(f.storage, "lazarus/site/bundle/generations"))
	if err != nil || len(gens) != 3 {
		t.Fatalf("stored generations: %d, %v; want the current one and the two before it", len(gens), err)
	}
}

// TestSelfBuildingFailure: a failing dump fails the build, and the last
// good generation keeps being served.
func TestSelfBuildingFailure(t *testing.T) {
	f := newBuildFixture(t)
	now := genTime
	h := f.handler(t, &now)
	mustBuild(t, h, "new")
	good := currentID(t, h)
	h.builder.opts.Dumps[0].Command = "echo broken >&2; exit 3"
	now = now.Add(2 * time.Hour)
	if got, err := h.builder.build(context.Background()); got != "failed" || err == nil {
		t.Fatalf("failing dump: %q, %v", got, err)
	}
	if currentID(t, h) != good {
		t.Fatal("a failed build changed the current generation")
	}
	if w := serve(t, h, &page{body: html}, "GET", "/", nil); !hasComments(w.Body.Bytes()) {
		t.Fatal("no blocks after a failed build")
	}
}

// TestSelfBuildingShared: two instances on one storage: the second finds
// the first one's generation (no second generation is made) and both
// serve identical pages.
func TestSelfBuildingShared(t *testing.T) {
	f := newBuildFixture(t)
	now := genTime
	a := f.handler(t, &now)
	mustBuild(t, a, "new")
	t.Setenv("XDG_DATA_HOME", t.TempDir()) // another machine: its own local cache
	b := f.handler(t, &now)
	now = now.Add(2 * time.Hour)
	mustBuild(t, b, "unchanged")
	if currentID(t, a) != currentID(t, b) {
		t.Fatal("instances serve different generations")
	}
	for _, u := range []string{"/", "/x", "/y"} {
		wa := serve(t, a, &page{body: html}, "GET", u, nil)
		wb := serve(t, b, &page{body: html}, "GET", u, nil)
		if !bytes.Equal(wa.Body.Bytes(), wb.Body.Bytes()) || !hasComments(wa.Body.Bytes()) {
			t.Fatalf("%s: the instances' pages differ", u)
		}
	}
}

// TestBuilderLoop: the started builder makes the first generation at once
// when storage has none, and stop ends it.
func TestBuilderLoop(t *testing.T) {
	f := newBuildFixture(t)
	now := time.Now()
	h := f.handler(t, &now)
	h.builder.start(context.Background())
	defer h.builder.stop()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := h.src.current(context.Background()); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no generation built")
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.builder.stop()
	h2 := f.handler(t, &now)
	if w := h2.builder.firstWait(context.Background()); w < time.Duration(DefaultEvery)-time.Minute {
		t.Fatalf("a restart right after a build waits %v, want about %v", w, DefaultEvery)
	}
}

// benchBuilder is a self-building handler preserving Go's src/crypto
// (16 MB, 1,000+ files) into storage in a temp dir.
func benchBuilder(b *testing.B) (*Handler, *time.Time) {
	b.Setenv("XDG_DATA_HOME", b.TempDir())
	dir := b.TempDir()
	_, server, err := keys.Generate(true)
	if err != nil {
		b.Fatal(err)
	}
	writeFile(b, filepath.Join(dir, "server.key"), server.Marshal())
	now := time.Now()
	h := &Handler{Name: "bench", storage: &certmagic.FileStorage{Path: filepath.Join(dir, "storage")}, now: func() time.Time { return now },
		Build: &Build{Sources: []Include{{Path: filepath.Join(runtime.GOROOT(), "src", "crypto")}}, Key: filepath.Join(dir, "server.key"), SiteURL: "https://example.org/"}}
	if err := h.setup(); err != nil {
		b.Fatal(err)
	}
	var size int64
	filepath.WalkDir(h.Build.Sources[0].Path, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				size += info.Size()
			}
		}
		return nil
	})
	b.SetBytes(size)
	return h, &now
}

// BenchmarkBuild_New measures a first build: seal, encode, store.
func BenchmarkBuild_New(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		h, _ := benchBuilder(b)
		b.StartTimer()
		if res, err := h.builder.build(context.Background()); err != nil || res != "new" {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkBuild_Unchanged measures the periodic check when nothing
// changed: pull the state, seal to compare, store nothing new.
func BenchmarkBuild_Unchanged(b *testing.B) {
	h, now := benchBuilder(b)
	if _, err := h.builder.build(context.Background()); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		*now = now.Add(2 * time.Hour)
		if res, err := h.builder.build(context.Background()); err != nil || res != "unchanged" {
			b.Fatal(res, err)
		}
	}
}

// TestBuildConfigErrors: what can be checked without building fails at
// Provision with a message naming the option, never in the background.
func TestBuildConfigErrors(t *testing.T) {
	f := newBuildFixture(t)
	tests := []struct {
		name string
		edit func(*Build)
		want string
	}{
		{"missing source", func(b *Build) { b.Sources = append(b.Sources, Include{Path: "/nonexistent/app"}) }, "source: lstat /nonexistent/app"},
		{"bad segment name", func(b *Build) { b.Sources[0].Segment = "bad/name" }, `segment name "bad/name"`},
		{"not a key file", func(b *Build) { b.Key = filepath.Join(f.src, "db.sql") }, "key: " + filepath.Join(f.src, "db.sql")},
		{"empty passphrase file", func(b *Build) {
			b.Key, b.PassphraseFile = "", filepath.Join(t.TempDir(), "empty")
			writeFile(t, b.PassphraseFile, []byte("\n"))
		}, "passphrase_file: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := f.build
			b.Sources = slices.Clone(b.Sources)
			tt.edit(&b)
			h := &Handler{Build: &b, Name: "site", Fill: true, storage: &certmagic.FileStorage{Path: f.storage}}
			if err := h.setup(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestPassphraseFileLikeCLI: the module reads a passphrase file exactly
// as `lazarus inject --passphrase-file` does (one final newline removed),
// so the owner's passphrase opens what the module sealed.
func TestPassphraseFileLikeCLI(t *testing.T) {
	f := newBuildFixture(t)
	pf := filepath.Join(t.TempDir(), "pass")
	writeFile(t, pf, []byte("correct horse \n\n"))
	b := f.build
	b.Key, b.PassphraseFile = "", pf
	h := &Handler{Build: &b, Name: "site", Fill: true, storage: &certmagic.FileStorage{Path: f.storage}}
	if err := h.setup(); err != nil {
		t.Fatal(err)
	}
	if got := string(h.builder.opts.Passphrase); got != "correct horse \n" {
		t.Fatalf("passphrase %q, want %q", got, "correct horse \n")
	}
}

// TestBuilderKeepsServedGenerations: an instance that has not switched yet
// (its reload interval not passed, or a crawler holding the switch) keeps
// serving the generation it loaded, with the one before riding along; two
// builds later those blocks are still in storage, so its pages keep their
// blocks. Once the instances must have moved on, a build prunes them.
func TestBuilderKeepsServedGenerations(t *testing.T) {
	f := newBuildFixture(t)
	now := genTime
	a := f.handler(t, &now)
	mustBuild(t, a, "new")
	first := currentID(t, a)
	slow := genTime // instance b's clock: it never reloads below
	b := f.handler(t, &slow)
	if w := serve(t, b, &page{body: html}, "GET", "/warm", nil); !hasComments(w.Body.Bytes()) {
		t.Fatal("no blocks on the first generation")
	}
	var c *Handler // an instance on the second generation, the first riding along
	var cNow time.Time
	for i := range 2 {
		writeFile(t, filepath.Join(f.src, "db.sql"), []byte("CREATE TABLE t (x);\nINSERT INTO t VALUES ("+string(rune('1'+i))+");\n"))
		now = now.Add(2 * time.Hour)
		mustBuild(t, a, "new")
		if c == nil {
			cNow = now
			c = f.handler(t, &cNow)
			serve(t, c, &page{body: html}, "GET", "/warm", nil)
		}
	}
	second := c.gen.Load().id
	for _, h := range []*Handler{b, c} { // as if evicted: blocks are read from storage again
		h.cache, h.pages = newBlockCache(defaultCacheBytes), newBlockCache(defaultPageCacheBytes)
	}
	// Expected: b still serves the first generation, with its blocks.
	for _, u := range []string{"/p1", "/p2", "/p3"} {
		w := serve(t, b, &page{body: html}, "GET", u, nil)
		if got := generations(t, w.Body.Bytes()); got[first] == 0 {
			t.Fatalf("%s: blocks by generation %v, status %d: the generation instance b serves was pruned", u, got, w.Code)
		}
	}
	// Expected: c serves the second generation with the first riding along.
	for _, u := range []string{"/q1", "/q2"} {
		w := serve(t, c, &page{body: html}, "GET", u, nil)
		if got := generations(t, w.Body.Bytes()); got[first] == 0 || got[second] == 0 {
			t.Fatalf("%s: blocks by generation %v, status %d: want both %s and %s", u, got, w.Code, first, second)
		}
	}
	// Expected: once every instance must have switched, the next build
	// prunes the first generation.
	now = now.Add(time.Duration(a.switchLag()) + time.Minute)
	mustBuild(t, a, "unchanged")
	gens, err := os.ReadDir(filepath.Join(f.storage, "lazarus/site/bundle/generations"))
	if err != nil || len(gens) != 2 || slices.ContainsFunc(gens, func(e os.DirEntry) bool { return e.Name() == first }) {
		t.Fatalf("stored generations after the hold: %d, %v; want the current and the previous one", len(gens), err)
	}
}

// TestBuildAfterLostLock: instance a's build stalls (its dump waits) for
// so long that the storage lock expires and instance b builds and
// publishes a generation meanwhile. a must then publish nothing: its
// generation would replace b's and a's prune would delete b's, which b
// serves (a Redis cluster's lock lost to a stalled holder).
func TestBuildAfterLostLock(t *testing.T) {
	f := newBuildFixture(t)
	now := genTime
	a := f.handler(t, &now)
	t.Setenv("XDG_DATA_HOME", t.TempDir()) // b's local cache: another machine's
	b := f.handler(t, &now)
	mustBuild(t, a, "new")
	first := currentID(t, a)
	writeFile(t, filepath.Join(f.src, "db.sql"), []byte("CREATE TABLE t (x);\nINSERT INTO t VALUES (1);\n"))
	gate := filepath.Join(t.TempDir(), "go")
	a.builder.opts.Dumps[0].Command = fmt.Sprintf("i=0; while [ ! -e %s ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done; cat %s", gate, filepath.Join(f.src, "db.sql"))
	now = now.Add(2 * time.Hour)
	type result struct {
		got string
		err error
	}
	done := make(chan result)
	go func() {
		got, err := a.builder.build(context.Background())
		done <- result{got, err}
	}()
	// b holds the lock now, as after a's expired: its build runs unlocked.
	res, err := b.builder.run(context.Background())
	if err != nil || !res.New {
		t.Fatalf("b's build: %+v, %v", res, err)
	}
	second := currentID(t, b)
	writeFile(t, gate, nil)
	r := <-done
	if r.got != "failed" || r.err == nil || !strings.Contains(r.err.Error(), "published by another instance") {
		t.Errorf("a's build after b published: %q, %v; want it to fail", r.got, r.err)
	}
	if id := currentID(t, a); id != second || id == first {
		t.Fatalf("current generation %s, want b's %s", id, second)
	}
	if _, err := b.src.loadGeneration(context.Background(), second); err != nil {
		t.Errorf("b's generation cannot be loaded after a's build: %v", err)
	}
}

// TestBuiltLogSaysWhatIsKnownFirst: the "built" log line says how many of
// the planned pages the generation survives losing, then the capture
// model's prior forecast by horizon (lower bounds, below one for a new
// generation no archive holds), not a probability under "each page kept
// with probability 1/2".
func TestBuiltLogSaysWhatIsKnownFirst(t *testing.T) {
	f := newBuildFixture(t)
	now := time.Now()
	h := f.handler(t, &now)
	core, logs := observer.New(zap.InfoLevel)
	h.logger = zap.New(core)
	if got, err := h.builder.build(context.Background()); err != nil || got != "new" {
		t.Fatalf("build: %q, %v", got, err)
	}
	built := logs.FilterMessage("built lazarus generation").All()
	if len(built) != 1 {
		t.Fatalf("%d built lines", len(built))
	}
	m := built[0].ContextMap()
	if n, ok := m["survives_loss_of_pages"].(int64); !ok || n < 1 {
		t.Errorf("survives_loss_of_pages %v (%T), want at least 1", m["survives_loss_of_pages"], m["survives_loss_of_pages"])
	}
	p7, ok7 := m["prior_forecast_within_7d"].(float64)
	p30, ok30 := m["prior_forecast_within_30d"].(float64)
	if !ok7 || !ok30 || p7 > p30 || p30 >= 1 || p7 < 0 {
		t.Errorf("prior forecasts within 7 and 30 days %v, %v; want 0 ≤ p7 ≤ p30 < 1", m["prior_forecast_within_7d"], m["prior_forecast_within_30d"])
	}
}
