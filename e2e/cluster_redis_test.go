package e2e

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/e2e/internal/e2etest"
	"github.com/lazarus-preserve/lazarus/internal/porttest"
	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/caddymodule/redisstorage"
	"github.com/lazarus-preserve/lazarus/caddymodule/redisstorage/redistest"
	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/redis/go-redis/v9"
)

// Settings of the Redis cluster test. The waits bound the test; they
// assert nothing about speed.
const (
	clusterEvery   = "6s" // each instance builds this often (skipping if another just did)
	clusterLockTTL = 2 * time.Second
	clusterPrefix  = "e2e"                 // the storage's key_prefix
	bundleKey      = "lazarus/e2e/bundle/" // the handler's generations in storage
	buildLockKey   = clusterPrefix + ":lock:lazarus/e2e/build"
	newGenTimeout  = 90 * time.Second // a new generation built and loaded
	redisDownFor   = 3 * time.Second  // how long Redis is stopped
	pollPause      = 20 * time.Millisecond
)

// TestClusterRedis: three Caddy processes with the module in self-building
// mode share one redis-server through caddy.storage.lazarus_redis.
// (a) once built, all three serve byte-identical pages; (b) builds never
// overlap: the dump that starts each build and the log line that ends it
// are ordered across the three; (c) the builder is killed (SIGKILL) while
// it stores a new generation: its lock expires after lock_ttl, another
// instance builds and publishes, and no page fetched (all three are polled
// throughout) ever carries a block of a segment that no published
// manifest names; (d) redis-server is stopped and restarted: every
// request meanwhile is answered with the last generation's blocks, and a
// new generation is built after the restart. The pages collected rebuild
// the server side byte for byte.
func TestClusterRedis(t *testing.T) {
	needMaterial(t)
	if e2etest.RaceEnabled {
		t.Skip("megabytes of real material are too slow under the race detector")
	}
	bin := buildCaddy(t)
	rs := redistest.Start(t)
	st := redisstorage.New(rs.Client(t), redisstorage.Options{Prefix: clusterPrefix})
	rdb := rs.Client(t)
	site, urls := copyManual(t)
	srv := newServerSide(t, wordpressSlim)
	key, owner := writeServerKey(t)
	work := t.TempDir()
	marks := filepath.Join(work, "builds")
	ports := []int{porttest.FreePort(t), porttest.FreePort(t), porttest.FreePort(t)}
	s := sharedSite{site: site, key: key, siteURL: fmt.Sprintf("http://127.0.0.1:%d/", ports[0]), srv: srv, every: clusterEvery,
		dump:       dumpScript(t, work, marks, srv),
		storageOpt: fmt.Sprintf("storage lazarus_redis {\n\t\taddress %s\n\t\tkey_prefix %s\n\t\tlock_ttl %v\n\t}", rs.Addr, clusterPrefix, clusterLockTTL)}

	start := time.Now()
	var procs []*caddyProc
	for i, name := range []string{"A", "B", "C"} {
		procs = append(procs, startCaddyProc(t, bin, name, ports[i], s.caddyfile(ports[i]), "LAZARUS_E2E_INSTANCE="+name))
	}
	client := identityClient(t)
	for _, c := range procs {
		waitForBlocks(t, client, c)
	}
	t.Logf("three instances serve the first generation %v after start", time.Since(start).Round(time.Millisecond))

	// (a) byte-identical pages, whichever instance serves a page first
	checkIdentical(t, client, procs[0], procs[1], site, urls)
	checkIdentical(t, client, procs[1], procs[2], site, urls)
	t.Logf("%d pages identical on A, B and C", len(urls))

	w := newClusterWatch(t, st, client, procs, urls)
	defer w.stop()
	g1 := w.waitCurrent(t, "")

	// (c) kill the builder while it stores the next generation
	modifyServerSide(t, srv, "after-first")
	killed, partial, killedAt := killMidStore(t, st, rdb, marks, procs, g1)
	t.Logf("killed caddy %s (SIGKILL) while it stored generation %s; the current one stayed %s", killed.name, partial, g1)
	live := slices.DeleteFunc(slices.Clone(procs), func(c *caddyProc) bool { return c == killed })
	g2 := w.waitCurrent(t, g1)
	if g2 == partial {
		t.Logf("the next builder made the same generation id %s (its blocks are new ciphertext)", g2)
	}
	waitLoaded(t, live, g2)
	t.Logf("another instance built and published generation %s; both live instances serve it", g2)

	// (d) Redis stopped and restarted while all pages are being served
	for _, c := range live {
		for _, u := range urls { // every page placed for g2 before Redis goes
			if _, err := getPage(client, c.base, u); err != nil {
				t.Fatal(err)
			}
		}
	}
	down := time.Now()
	if err := rs.Stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(redisDownFor)
	if err := rs.Restart(); err != nil {
		t.Fatal(err)
	}
	up := time.Now()
	t.Logf("redis-server stopped for %v and restarted", up.Sub(down).Round(time.Millisecond))
	modifyServerSide(t, srv, "after-restart")
	g3 := w.waitCurrent(t, g2)
	waitLoaded(t, live, g3)
	t.Logf("after the restart generation %s was built and is served", g3)
	for _, c := range live { // every page with g3's blocks, as an archive's crawl would have them
		for _, u := range urls {
			w.fetchOne(c, u)
		}
	}
	w.stop()

	w.check(t, killed, down, up.Add(time.Second))
	checkBuildOrder(t, marks, procs, killed, killedAt, down)
	dir := w.writePages(t)
	srv.check(t, recoverInto(t, owner, source.DirSource{Dir: dir}))
}

// dumpScript writes the database's dump command: it notes which instance
// starts a build, and when, in marks, then runs sqlite3.
func dumpScript(t *testing.T, dir, marks string, srv serverSide) string {
	t.Helper()
	p := filepath.Join(dir, "dump.sh")
	script := fmt.Sprintf("#!/bin/sh\nprintf 'start %%s %%s\\n' \"$LAZARUS_E2E_INSTANCE\" \"$(date +%%s.%%N)\" >> %s\nexec %s\n",
		shellQuote(marks), srv.dumpCommand())
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return "sh " + shellQuote(p)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// modifyServerSide changes the preserved tree: a new file of 512 KiB of
// random bytes, so that the next build makes a new generation whose
// WordPress segment is new from end to end.
func modifyServerSide(t *testing.T, srv serverSide, name string) {
	t.Helper()
	b := make([]byte, 512<<10)
	rand.Read(b)
	if err := os.WriteFile(filepath.Join(srv.WordPress, "wp-content", name+".bin"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// killMidStore waits for the first key of a generation other than cur to
// appear in Redis, pauses Redis's writes at once (CLIENT PAUSE WRITE: the
// builder is frozen mid-store), kills the instance that started the last
// build with SIGKILL and lets writes go on. It fails the test unless the
// build lock was still held and the current generation still cur.
func killMidStore(t *testing.T, st *redisstorage.Storage, rdb *redis.Client, marks string, procs []*caddyProc, cur string) (*caddyProc, string, time.Time) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(newGenTimeout)
	var partial string
	for partial == "" {
		if time.Now().After(deadline) {
			t.Fatalf("no new generation began to be stored within %v", newGenTimeout)
		}
		ids, _ := st.List(ctx, bundleKey+"generations", false)
		for _, k := range ids {
			if id := filepath.Base(k); id != cur {
				partial = id
			}
		}
		time.Sleep(time.Millisecond)
	}
	if err := rdb.Do(ctx, "CLIENT", "PAUSE", "30000", "WRITE").Err(); err != nil {
		t.Fatalf("CLIENT PAUSE: %v", err)
	}
	builds := readMarks(t, marks)
	last := builds[len(builds)-1].instance
	var victim *caddyProc
	for _, c := range procs {
		if c.name == last {
			victim = c
		}
	}
	if victim == nil {
		t.Fatalf("the last build mark names %q", last)
	}
	victim.cmd.Process.Signal(syscall.SIGKILL)
	<-victim.exited
	killedAt := time.Now()
	stored, _ := st.List(ctx, bundleKey+"generations/"+partial, true)
	now, err := st.Load(ctx, bundleKey+"current")
	ttl := rdb.PTTL(ctx, buildLockKey).Val()
	if err := rdb.Do(ctx, "CLIENT", "UNPAUSE").Err(); err != nil {
		t.Fatalf("CLIENT UNPAUSE: %v", err)
	}
	switch {
	case err != nil:
		t.Fatal(err)
	case strings.TrimSpace(string(now)) != cur:
		t.Fatalf("the kill came too late: generation %s was published already", now)
	case ttl <= 0:
		t.Fatalf("the build lock was not held when its holder was killed (PTTL %v)", ttl)
	}
	t.Logf("at the kill %d keys of generation %s were stored; the dead holder's lock had %v to live", len(stored), partial, ttl)
	return victim, partial, killedAt
}

// waitLoaded waits until every instance in procs logged loading
// generation id.
func waitLoaded(t *testing.T, procs []*caddyProc, id string) {
	t.Helper()
	deadline := time.Now().Add(newGenTimeout)
	for _, c := range procs {
		for !strings.Contains(logLines(t, c, `"msg":"loaded lazarus generation"`), `"generation":"`+id+`"`) {
			if time.Now().After(deadline) {
				t.Fatalf("caddy %s did not load generation %s within %v", c.name, id, newGenTimeout)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// logLines returns the lines of c's log containing s.
func logLines(t *testing.T, c *caddyProc, s string) string {
	b, err := os.ReadFile(c.log)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for line := range strings.Lines(string(b)) {
		if strings.Contains(line, s) {
			out.WriteString(line)
		}
	}
	return out.String()
}

// buildMark is one build's start, as the dump script noted it.
type buildMark struct {
	instance string
	at       time.Time
}

func readMarks(t *testing.T, path string) []buildMark {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []buildMark
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var name string
		var sec float64
		if _, err := fmt.Sscanf(sc.Text(), "start %s %f", &name, &sec); err != nil {
			t.Fatalf("build mark %q: %v", sc.Text(), err)
		}
		out = append(out, buildMark{name, time.Unix(0, int64(sec*1e9))})
	}
	return out
}

// builtTimes returns when c logged "built lazarus generation".
func builtTimes(t *testing.T, c *caddyProc) []time.Time {
	var out []time.Time
	for line := range strings.Lines(logLines(t, c, `"msg":"built lazarus generation"`)) {
		var e struct{ TS float64 }
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("caddy %s log line %q: %v", c.name, line, err)
		}
		out = append(out, time.Unix(0, int64(e.TS*1e9)))
	}
	return out
}

// checkBuildOrder: every build runs from its dump's start to its "built"
// log line (the killed build to its kill); under the storage lock no two
// of the builds started before until overlap, whichever instances run
// them. (Redis down for longer than lock_ttl frees a held lock: then two
// builds may run, and the one that finishes second publishes nothing,
// which the generation checks cover.)
func checkBuildOrder(t *testing.T, marks string, procs []*caddyProc, killed *caddyProc, killedAt, until time.Time) {
	t.Helper()
	builds := slices.DeleteFunc(readMarks(t, marks), func(b buildMark) bool { return !b.at.Before(until) })
	ends := map[string][]time.Time{}
	for _, c := range procs {
		ends[c.name] = builtTimes(t, c)
	}
	type span struct {
		who        string
		start, end time.Time
	}
	var spans []span
	for _, b := range builds {
		i := slices.IndexFunc(ends[b.instance], func(e time.Time) bool { return e.After(b.at) })
		if i < 0 {
			if b.instance != killed.name {
				t.Errorf("caddy %s started a build at %v that never ended", b.instance, b.at)
			}
			spans = append(spans, span{b.instance, b.at, killedAt})
			continue
		}
		spans = append(spans, span{b.instance, b.at, ends[b.instance][i]})
		ends[b.instance] = ends[b.instance][i+1:]
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start.Compare(b.start) })
	who := map[string]bool{}
	for i, sp := range spans {
		who[sp.who] = true
		if i > 0 && spans[i-1].end.After(sp.start) {
			t.Errorf("builds overlap: caddy %s from %v to %v, caddy %s from %v", spans[i-1].who, spans[i-1].start, spans[i-1].end, sp.who, sp.start)
		}
	}
	if len(spans) < 3 || len(who) < 2 {
		t.Errorf("%d builds by %d instances: too few to show they take turns", len(spans), len(who))
	}
	t.Logf("%d builds by %d instances, one at a time", len(spans), len(who))
}

// clusterWatch polls every page of every live instance until stopped,
// and follows the current generation in Redis, keeping each published
// manifest's segment ids.
type clusterWatch struct {
	st     *redisstorage.Storage
	client *http.Client
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	bodies    map[[32]byte][]byte    // every distinct body served
	firstAt   map[[32]byte]time.Time // when each was first served
	fetches   []fetch
	published map[string]bool          // generations seen as current, in order of appearance
	order     []string                 // the same, in order
	segments  map[manifest.Digest]bool // segments of published generations
}

// fetch is one request of the watch.
type fetch struct {
	instance string
	path     string
	at       time.Time
	err      error
	sum      [32]byte
	blocks   int
}

func newClusterWatch(t *testing.T, st *redisstorage.Storage, client *http.Client, procs []*caddyProc, urls []string) *clusterWatch {
	ctx, cancel := context.WithCancel(context.Background())
	w := &clusterWatch{st: st, client: client, cancel: cancel, bodies: map[[32]byte][]byte{}, firstAt: map[[32]byte]time.Time{}, published: map[string]bool{}, segments: map[manifest.Digest]bool{}}
	w.wg.Go(func() { w.followCurrent(ctx, t) })
	for _, c := range procs {
		w.wg.Go(func() { w.poll(ctx, c, urls) })
	}
	return w
}

func (w *clusterWatch) stop() { w.cancel(); w.wg.Wait() }

// poll fetches c's pages round and round until ctx ends or c exits.
func (w *clusterWatch) poll(ctx context.Context, c *caddyProc, urls []string) {
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-c.exited:
			return
		case <-time.After(pollPause):
		}
		w.fetchOne(c, urls[i%len(urls)])
	}
}

// fetchOne fetches path from c and records the response.
func (w *clusterWatch) fetchOne(c *caddyProc, u string) {
	f := fetch{instance: c.name, path: u, at: time.Now()}
	p, err := getPage(w.client, c.base, u)
	f.err = err
	if err == nil {
		f.sum = sha256.Sum256(p.body)
		for _, fd := range htmlblock.Scan(p.body) {
			if fd.Kind == htmlblock.KindBlock {
				f.blocks++
			}
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err == nil && w.bodies[f.sum] == nil {
		w.bodies[f.sum], w.firstAt[f.sum] = p.body, f.at
	}
	w.fetches = append(w.fetches, f)
}

// followCurrent reads the current generation every few milliseconds and
// records each new one's segments from its manifest in Redis.
func (w *clusterWatch) followCurrent(ctx context.Context, t *testing.T) {
	for ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
		v, err := w.st.Load(ctx, bundleKey+"current")
		if err != nil {
			continue // none yet, or Redis down
		}
		id := strings.TrimSpace(string(v))
		w.mu.Lock()
		seen := w.published[id]
		w.mu.Unlock()
		if seen {
			continue
		}
		env, err := w.st.Load(ctx, bundleKey+"generations/"+id+"/manifest")
		if err != nil {
			continue
		}
		signed, err := manifest.Parse(env)
		if err != nil {
			t.Errorf("manifest of current generation %s: %v", id, err)
			return
		}
		w.mu.Lock()
		w.published[id] = true
		w.order = append(w.order, id)
		for _, s := range signed.Manifest.Segments {
			w.segments[s.ID] = true
		}
		w.mu.Unlock()
	}
}

// waitCurrent waits until a generation other than prev is current and
// returns it.
func (w *clusterWatch) waitCurrent(t *testing.T, prev string) string {
	t.Helper()
	deadline := time.Now().Add(newGenTimeout)
	for time.Now().Before(deadline) {
		w.mu.Lock()
		var last string
		if len(w.order) > 0 {
			last = w.order[len(w.order)-1]
		}
		w.mu.Unlock()
		if last != "" && last != prev {
			return last
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no generation after %q became current within %v", prev, newGenTimeout)
	return ""
}

// check: no request failed (but those to the killed instance once it was
// killed), every request from down to up was answered with blocks, and
// every block on every page served belongs to a segment a published
// manifest names: no torn or unpublished generation was ever served.
func (w *clusterWatch) check(t *testing.T, killed *caddyProc, down, up time.Time) {
	t.Helper()
	var failed, inOutage, bare, total int
	for _, f := range w.fetches {
		if f.err != nil && f.instance == killed.name {
			continue // killed mid-request
		}
		total++
		if f.err != nil {
			failed++
			if failed <= 5 {
				t.Errorf("caddy %s %s at %v: %v", f.instance, f.path, f.at.Format(time.TimeOnly), f.err)
			}
			continue
		}
		if f.at.After(down) && f.at.Before(up) {
			inOutage++
			if f.blocks == 0 {
				bare++
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d requests failed", failed, total)
	}
	if inOutage == 0 || bare > 0 {
		t.Errorf("while Redis was down: %d requests, %d of them answered without blocks", inOutage, bare)
	}
	alien := 0
	byGen := map[string]int{} // distinct blocks served, by the generation that made them
	seen := map[[32]byte]bool{}
	for sum, body := range w.bodies {
		for _, fd := range htmlblock.Scan(body) {
			if fd.Kind != htmlblock.KindBlock || fd.Err != nil {
				continue
			}
			b, err := block.Parse(fd.Payload)
			if err != nil {
				t.Errorf("a served page carries a bad block: %v", err)
				continue
			}
			if d := sha256.Sum256(fd.Payload); !seen[d] {
				seen[d] = true
				byGen[fmt.Sprintf("%x", b.Generation[:4])]++
			}
			if !w.segments[manifest.Digest(b.SegmentID)] {
				alien++
				t.Errorf("a served page (%x) carries a block of segment %x, which no published manifest names", sum[:4], b.SegmentID[:8])
			}
		}
	}
	t.Logf("%d requests to the three instances (%d while Redis was down), 0 failed; %d distinct pages; generations published: %s; distinct blocks served by generation: %v",
		total, inOutage, len(w.bodies), strings.Join(w.order, ", "), byGen)
}

// writePages writes every distinct page served into a directory for
// recover's dir source, each dated when it was first served (the dir
// source's capture time: recover reads the newest captures first).
func (w *clusterWatch) writePages(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	i := 0
	for sum, body := range w.bodies {
		i++
		p := filepath.Join(dir, strconv.Itoa(i)+".html")
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, w.firstAt[sum], w.firstAt[sum]); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
