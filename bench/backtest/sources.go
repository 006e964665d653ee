package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// serverSide is a world's server side as it changes: a small application
// tree (changed at some generations) and a database dump of about 1 MB
// (changed at every one: rows added, some edited).
type serverSide struct {
	app   map[string]string // slash path → contents
	rows  []string          // the dump's INSERT lines
	words *site             // the vocabulary
	next  int               // the next row id
}

// appFiles are the application's files and their sizes in bytes.
var appFiles = []struct {
	path string
	size int
}{
	{"index.php", 3_000}, {"config.php", 1_200}, {"lib/db.php", 9_000}, {"lib/render.php", 14_000},
	{"lib/auth.php", 7_000}, {"templates/page.html", 5_000}, {"templates/list.html", 4_000},
	{"assets/site.css", 22_000}, {"cron/nightly.sh", 800},
}

// newServerSide draws the first generation's server side.
func newServerSide(rng *rand.Rand, s *site) *serverSide {
	ss := &serverSide{app: map[string]string{}, words: s, next: 1}
	for _, f := range appFiles {
		ss.app[f.path] = ss.text(rng, f.size)
	}
	for ss.size() < 1_000_000 {
		ss.addRow(rng)
	}
	return ss
}

// change moves the server side on by one generation: 2–8% more rows and
// 1% edited; with probability 0.3 one application file changes.
func (ss *serverSide) change(rng *rand.Rand) {
	n := len(ss.rows)
	for range n * (2 + rng.IntN(7)) / 100 {
		ss.addRow(rng)
	}
	for range n / 100 {
		i := rng.IntN(n)
		ss.rows[i] = ss.row(rng, i+1)
	}
	if rng.Float64() < 0.3 {
		f := appFiles[rng.IntN(len(appFiles))]
		ss.app[f.path] = ss.text(rng, f.size)
	}
}

func (ss *serverSide) addRow(rng *rand.Rand) {
	ss.rows = append(ss.rows, ss.row(rng, ss.next))
	ss.next++
}

// row renders one INSERT line.
func (ss *serverSide) row(rng *rand.Rand, id int) string {
	return fmt.Sprintf("INSERT INTO posts VALUES (%d, '%s', '%s', '2025-%02d-%02d %02d:%02d:%02d', %d);",
		id, ss.text(rng, 30), ss.text(rng, 150+rng.IntN(400)), 1+rng.IntN(12), 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60), rng.IntN(5000))
}

// text draws about n bytes of words.
func (ss *serverSide) text(rng *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(ss.words.word(rng))
		b.WriteByte(' ')
	}
	return b.String()
}

// size is the dump's size in bytes.
func (ss *serverSide) size() int {
	n := 0
	for _, r := range ss.rows {
		n += len(r) + 1
	}
	return n
}

// dump is the dump's contents.
func (ss *serverSide) dump() []byte {
	var b strings.Builder
	b.WriteString("-- dump of database app\nCREATE TABLE posts (id INT PRIMARY KEY, title TEXT, body TEXT, created DATETIME, views INT);\n")
	for _, r := range ss.rows {
		b.WriteString(r)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// write writes the application tree into dir/app and the dump into
// dir/db.sql, replacing what was there.
func (ss *serverSide) write(dir string) error {
	if err := os.RemoveAll(filepath.Join(dir, "app")); err != nil {
		return err
	}
	for p, c := range ss.app {
		path := filepath.Join(dir, "app", filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(c), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "db.sql"), ss.dump(), 0o644)
}

// files returns what a recovery must restore: every file by its path in
// the output directory ("app/…" and "db.sql").
func (ss *serverSide) files() map[string][]byte {
	out := map[string][]byte{"db.sql": ss.dump()}
	for p, c := range ss.app {
		out["app/"+p] = []byte(c)
	}
	return out
}
