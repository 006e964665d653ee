package caddymodule

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/encode/gzip"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/encode/zstd"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/fileserver"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy/fastcgi"
	_ "github.com/caddyserver/caddy/v2/modules/filestorage"
	"github.com/caddyserver/certmagic"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestUnmarshalCaddyfile(t *testing.T) {
	tests := []struct {
		name, input string
		want        *Handler
		wantErr     bool
	}{
		{"shorthand", "lazarus /srv/bundle", &Handler{Bundle: "/srv/bundle"}, false},
		{"block", `lazarus {
			bundle /b
			page_budget 256KiB
			max_buffer 1048576
			query_carriers
			reload_interval 1m
		}`, &Handler{Bundle: "/b", PageBudget: 256 << 10, MaxBuffer: 1 << 20, QueryCarriers: true, ReloadInterval: caddy.Duration(time.Minute)}, false},
		{"two args", "lazarus /a /b", &Handler{}, true},
		{"unknown option", "lazarus {\n foo 1\n}", &Handler{}, true},
		{"bad size", "lazarus {\n page_budget lots\n}", &Handler{}, true},
		{"zero size", "lazarus {\n max_buffer 0\n}", &Handler{}, true},
		{"missing arg", "lazarus {\n bundle\n}", &Handler{}, true},
		{"bad duration", "lazarus {\n reload_interval -1s\n}", &Handler{}, true},
		{"query_carriers arg", "lazarus {\n query_carriers yes\n}", &Handler{}, true},
		{"overlap and crawlers", "lazarus /b {\n overlap 72h\n crawl_session 5m\n max_crawl_hold 30m\n crawlers CCBot archive.org_bot\n}",
			&Handler{Bundle: "/b", Overlap: caddy.Duration(72 * time.Hour), CrawlSession: caddy.Duration(5 * time.Minute),
				MaxCrawlHold: caddy.Duration(30 * time.Minute), Crawlers: []string{"CCBot", "archive.org_bot"}}, false},
		{"bad max_crawl_hold", "lazarus {\n max_crawl_hold 0s\n}", &Handler{}, true},
		// Expected: overlap off, 0 or a negative duration disable the
		// overlap, as a negative overlap does in JSON (0 there is the
		// default); before the fix all three were refused.
		{"overlap off", "lazarus /b {\n overlap off\n}", &Handler{Bundle: "/b", Overlap: -1}, false},
		{"overlap 0", "lazarus /b {\n overlap 0\n}", &Handler{Bundle: "/b", Overlap: -1}, false},
		{"overlap negative", "lazarus /b {\n overlap -1s\n}", &Handler{Bundle: "/b", Overlap: -1}, false},
		{"bad overlap", "lazarus /b {\n overlap soon\n}", &Handler{}, true},
		{"crawlers without names", "lazarus {\n crawlers\n}", &Handler{}, true},
		{"build", `lazarus {
			source /srv/app
			source /etc/app config
			exclude *.log tmp/
			dump db sqlite3 /var/db.sqlite .dump
			key /k/server.key
			site_url https://example.org/
			every 30m
			carriers 64
			max_block_bytes 16KiB
			redundancy 2
			name shop
			copies 5
		}`, &Handler{Name: "shop", Copies: 5, Build: &Build{
			Sources:  []Include{{Path: "/srv/app"}, {Path: "/etc/app", Segment: "config"}},
			Excludes: []string{"*.log", "tmp/"}, Dumps: []Dump{{Name: "db", Command: "sqlite3 /var/db.sqlite .dump"}},
			Key: "/k/server.key", SiteURL: "https://example.org/", Every: caddy.Duration(30 * time.Minute),
			Carriers: 64, MaxBlockBytes: 16 << 10, Redundancy: 2}}, false},
		{"max_page_bytes", "lazarus /b {\n max_page_bytes 512KiB\n}", &Handler{Bundle: "/b", MaxPageBytes: 512 << 10}, false},
		{"notice", "lazarus /b {\n notice \"Backup updated {date}\"\n}", &Handler{Bundle: "/b", Notice: "Backup updated {date}"}, false},
		{"source with three args", "lazarus {\n source a b c\n}", &Handler{}, true},
		{"dump without command", "lazarus {\n dump db\n}", &Handler{}, true},
		{"dump quoted words", "lazarus {\n dump db printf \"it's %s\\n\" x\n}",
			&Handler{Build: &Build{Dumps: []Dump{{Name: "db", Command: `printf 'it'\''s %s\n' x`}}}}, false},
		{"dump command line", "lazarus {\n dump db \"pg_dump shop | gzip\"\n}", &Handler{Build: &Build{Dumps: []Dump{{Name: "db", Command: "pg_dump shop | gzip"}}}}, false},
		{"dump unquoted pipe", "lazarus {\n dump db pg_dump shop | gzip\n}", &Handler{Build: &Build{Dumps: []Dump{{Name: "db", Command: "pg_dump shop | gzip"}}}}, false},
		{"volatile lines of a dump", "lazarus {\n dump db \"mariadb-dump --skip-dump-date wp\"\n volatile db `^INSERT INTO \\x60wp_options\\x60 VALUES \\(\\d+,'_transient_` ^x\n}",
			&Handler{Build: &Build{Dumps: []Dump{{Name: "db", Command: "mariadb-dump --skip-dump-date wp", Volatile: []string{"^INSERT INTO \\x60wp_options\\x60 VALUES \\(\\d+,'_transient_", "^x"}}}}}, false},
		{"volatile before its dump", "lazarus {\n volatile db ^x\n dump db true\n}", &Handler{}, true},
		{"volatile without a pattern", "lazarus {\n dump db true\n volatile db\n}", &Handler{}, true},
		{"bad redundancy", "lazarus {\n redundancy 0\n}", &Handler{}, true},
		{"bad carriers", "lazarus {\n carriers many\n}", &Handler{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Handler
			err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tt.input))
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			if err == nil && (h.Bundle != tt.want.Bundle || h.PageBudget != tt.want.PageBudget || h.MaxBuffer != tt.want.MaxBuffer ||
				h.QueryCarriers != tt.want.QueryCarriers || h.ReloadInterval != tt.want.ReloadInterval ||
				h.Overlap != tt.want.Overlap || h.CrawlSession != tt.want.CrawlSession || h.MaxCrawlHold != tt.want.MaxCrawlHold || !slices.Equal(h.Crawlers, tt.want.Crawlers) ||
				h.Name != tt.want.Name || h.Notice != tt.want.Notice || h.MaxPageBytes != tt.want.MaxPageBytes || h.Copies != tt.want.Copies || !reflect.DeepEqual(h.Build, tt.want.Build)) {
				t.Fatalf("got %+v", &h)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	build := func(b Build) *Handler { return &Handler{Name: "n", Build: &b} }
	ok := Build{Sources: []Include{{Path: "/a"}}, Key: "k", SiteURL: "https://example.org/"}
	bad := []*Handler{{}, {Bundle: "b", PageBudget: -1}, {Bundle: "b", MaxBuffer: -1}, {Bundle: "b", ReloadInterval: -1}, {Bundle: "b", Name: "n", MaxCrawlHold: -1},
		{Bundle: "b", Name: "../x"}, {Bundle: "b", Name: "n", Build: &ok}, // bundle and build
		build(Build{Key: "k", SiteURL: ok.SiteURL}),                                           // nothing to build from
		build(Build{Sources: ok.Sources, SiteURL: ok.SiteURL}),                                // no key
		build(Build{Sources: ok.Sources, Key: "k", PassphraseFile: "p", SiteURL: ok.SiteURL}), // two keys
		build(Build{Sources: ok.Sources, Key: "k", SiteURL: "example.org"}),                   // relative site URL
	}
	if err := build(ok).Validate(); err != nil {
		t.Fatalf("good build config refused: %v", err)
	}
	for _, h := range bad {
		if err := h.Validate(); err == nil {
			t.Errorf("%+v: no error", h)
		}
	}
}

// TestAdapt: Caddyfiles adapt to the JSON in testdata/adapt/*.json
// (rewritten with -update); lazarus sits after encode.
func TestAdapt(t *testing.T) {
	files, _ := filepath.Glob("testdata/adapt/*.caddyfile")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			in, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			out, warns, err := caddyconfig.GetAdapter("caddyfile").Adapt(in, map[string]any{"filename": "Caddyfile"})
			if err != nil || len(warns) > 0 {
				t.Fatalf("adapt: %v %v", err, warns)
			}
			var pretty bytes.Buffer
			json.Indent(&pretty, out, "", "\t")
			golden := file[:len(file)-len(".caddyfile")] + ".json"
			if *update {
				os.WriteFile(golden, pretty.Bytes(), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil || !bytes.Equal(pretty.Bytes(), want) {
				t.Fatalf("adapted:\n%s", pretty.Bytes())
			}
		})
	}
}

// TestDocsCaddyfiles: every Caddyfile example in the README and docs/
// adapts (docs/CADDY.md holds the module's, docs/CLUSTER.md the Redis
// storage's).
func TestDocsCaddyfiles(t *testing.T) {
	docs, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	perFile := map[string]int{}
	for _, doc := range append([]string{"../README.md"}, docs...) {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		blocks := regexp.MustCompile("(?s)```caddyfile\n(.*?)```").FindAllSubmatch(text, -1)
		perFile[filepath.Base(doc)] = len(blocks)
		for i, b := range blocks {
			if _, _, err := caddyconfig.GetAdapter("caddyfile").Adapt(b[1], map[string]any{"filename": doc}); err != nil {
				t.Errorf("%s, example %d: %v", doc, i+1, err)
			}
		}
	}
	if perFile["CADDY.md"] < 2 || perFile["CLUSTER.md"] < 2 {
		t.Fatalf("Caddyfile examples per file: %v; want the bundle and the self-building one in CADDY.md, the Redis storage and two instances in CLUSTER.md", perFile)
	}
}

// TestCaddyfileDumpQuoting: a dump's command keeps the words the
// Caddyfile gave it. A build through the builder preserves, for each
// dump, what the shell prints for those words: quoted arguments are one
// word each, literally (quotes, backslashes and all); unquoted ones are
// shell syntax (a pipe); a single argument is the whole command line.
func TestCaddyfileDumpQuoting(t *testing.T) {
	f := newBuildFixture(t)
	words := map[string][]string{ // dumps whose expected output the shell prints for the same words
		"create": {"printf", `CREATE TABLE t(x);\n`},
		"spaced": {"printf", `%s|%s\n`, "a  b", "it's"},
		"quotes": {"printf", `%s\n`, `say "hi" $HOME \ *`},
	}
	config := fmt.Sprintf(`lazarus {
		dump create printf "CREATE TABLE t(x);\n"
		dump spaced printf "%%s|%%s\n" "a  b" "it's"
		dump quotes printf "%%s\n" "say \"hi\" $HOME \ *"
		dump piped printf "b\na\n" | sort
		dump whole "printf 'x|y\n' | tr '|' -"
		key %s
		site_url https://example.org/
		max_block_bytes 2048
		carriers 8
	}`, f.build.Key)
	h := &Handler{}
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(config)); err != nil {
		t.Fatal(err)
	}
	h.Name, h.storage = "site", &certmagic.FileStorage{Path: f.storage}
	now := genTime
	h.now = func() time.Time { return now }
	if err := h.setup(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for name, w := range words {
		out, err := exec.Command("sh", append([]string{"-c", `"$@"`, "sh"}, w...)...).Output()
		if err != nil {
			t.Fatalf("sh running %q: %v", w, err)
		}
		want[name] = string(out)
	}
	want["piped"], want["whole"] = "a\nb\n", "x-y\n"
	mustBuild(t, h, "new")
	now = now.Add(time.Minute)
	pages := map[string][]byte{}
	for _, u := range []string{"/", "/a", "/b", "/c", "/d", "/e", "/f", "/g", "/h", "/i", "/j", "/k"} {
		pages[u] = serve(t, h, &page{body: html}, "GET", u, nil).Body.Bytes()
	}
	files := map[string]string{}
	for name, out := range want {
		files[name] = filepath.Join(t.TempDir(), name)
		writeFile(t, files[name], []byte(out))
	}
	checkRecoverFiles(t, f.owner, pages, files)
}

// parseValidated parses a lazarus Caddyfile block into a Handler, names
// it "n" and validates it. With wantErr it fails the test unless parsing
// or Validate fails with an error saying wantErr, and returns nil; else
// it fails the test on any error.
func parseValidated(t *testing.T, input, wantErr string) *Handler {
	t.Helper()
	h := new(Handler)
	err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(input))
	if err == nil {
		h.Name = "n"
		err = h.Validate()
	}
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("error %v, want one saying %q", err, wantErr)
		}
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return h
}
