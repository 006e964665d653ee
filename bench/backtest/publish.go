package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
)

// siteURL is every world's site URL.
const siteURL = "https://example.org/"

// version is one page's bytes, served from From on.
type version struct {
	From time.Time
	Body []byte
}

// served is what a site served over time: per page URL, its versions in
// time order. A page serves its latest version from before the time
// asked; before its first, nothing.
type served map[string][]version

// at returns the bytes page url served at t, nil if none.
func (s served) at(url string, t time.Time) []byte {
	vs := s[url]
	i := sort.Search(len(vs), func(i int) bool { return vs[i].From.After(t) })
	if i == 0 {
		return nil
	}
	return vs[i-1].Body
}

// snapshot records that the site directory's pages are served from t on.
func (s served) snapshot(st *site, dir string, t time.Time) error {
	for _, p := range st.Pages {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p.File)))
		if err != nil {
			return err
		}
		s[p.URL] = append(s[p.URL], version{From: t, Body: b})
	}
	return nil
}

// generation is one published generation.
type generation struct {
	ID    string
	At    time.Time
	Files map[string][]byte // what a recovery must restore
	// Outlook is what inject printed of the generation's chances: the
	// capture model's prior within 1, 7 and 30 days.
	Outlook []injector.Chance
}

// publish runs the real injector on the site directory at each time in
// at (with the state directory carried from run to run, as a deploy
// does: make-before-break keeps the previous generation's blocks, and
// the serve history records every page version and its depth), the
// server side moving on by one generation before each run but the
// first. It returns the generations and records what the site served,
// from launch (the pages without blocks) on.
func publish(ctx context.Context, w *worldDir, st *site, ss *serverSide, launch time.Time, at []time.Time, serverKey []byte, change func()) ([]generation, served, error) {
	srv := served{}
	if err := srv.snapshot(st, w.site, launch); err != nil {
		return nil, nil, err
	}
	var gens []generation
	for i, t := range at {
		if i > 0 {
			change()
		}
		if err := ss.write(w.src); err != nil {
			return nil, nil, err
		}
		g, _, err := injectAt(ctx, w, st, srv, t, serverKey, nil)
		if err != nil {
			return nil, nil, err
		}
		g.Files = ss.files()
		gens = append(gens, g)
	}
	return gens, srv, nil
}

// injectAt runs the real injector at t on the site directory, preserving
// the server side written in the world's source directory (its app tree
// and its dump, read by a dump command), with adjust (if not nil) applied
// to the options, and records in srv what the site serves from t on. The
// generation it returns has no Files: the caller knows what it wrote.
func injectAt(ctx context.Context, w *worldDir, st *site, srv served, t time.Time, serverKey []byte, adjust func(*injector.Options)) (generation, *injector.Report, error) {
	o := injector.DefaultOptions()
	o.SiteDir, o.StateDir, o.SiteURL, o.ServerKey = w.site, w.state, siteURL, serverKey
	o.Includes = []injector.Include{{Path: filepath.Join(w.src, "app"), Segment: "app"}}
	o.Dumps = []injector.Dump{{Name: "db.sql", Command: "cat " + shellQuote(filepath.Join(w.src, "db.sql"))}}
	o.Now = func() time.Time { return t }
	if adjust != nil {
		adjust(&o)
	}
	injecting.Lock()
	rep, err := injector.Run(ctx, o)
	injecting.Unlock()
	if err != nil {
		return generation{}, nil, fmt.Errorf("inject at %s: %w", t.Format(time.DateOnly), err)
	}
	if err := srv.snapshot(st, w.site, t); err != nil {
		return generation{}, nil, err
	}
	g := generation{ID: rep.Generation, At: t}
	if rep.Outlook != nil {
		g.Outlook = rep.Outlook.Within
	}
	return g, rep, nil
}

// injecting makes the worlds' inject runs one at a time. injector.Run
// releases its state directory's lock by closing the file, without
// unlocking it: a process another goroutine forks meanwhile (another
// world's dump command) holds a copy of the lock until it execs, and the
// world's next run then finds its state directory locked (ErrLocked).
var injecting sync.Mutex

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// worldDir is a world's scratch directories.
type worldDir struct {
	root, site, src, state string
}

func newWorldDir(tmp string) (*worldDir, error) {
	root, err := os.MkdirTemp(tmp, "world-")
	if err != nil {
		return nil, err
	}
	w := &worldDir{root: root, site: filepath.Join(root, "site"), src: filepath.Join(root, "src"), state: filepath.Join(root, "state")}
	for _, d := range []string{w.site, w.src} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// writeServerSide writes files (slash paths: "app/…" and "db.sql", as
// serverSide.files returns them) into dir, replacing its app tree.
func writeServerSide(dir string, files map[string][]byte) error {
	if err := os.RemoveAll(filepath.Join(dir, "app")); err != nil {
		return err
	}
	for name, b := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// sameLinks checks that every version of every page links to the pages
// its first version links to, in the same order: what crawlers walk.
func (s served) sameLinks() error {
	for u, vs := range s {
		first := links(vs[0].Body)
		for _, v := range vs[1:] {
			if !slices.Equal(links(v.Body), first) {
				return fmt.Errorf("page %s served from %s links elsewhere than before", u, v.From.Format(time.DateTime))
			}
		}
	}
	return nil
}
