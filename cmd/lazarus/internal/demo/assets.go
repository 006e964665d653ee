package demo

import (
	"embed"
	"io/fs"
	"os"
	"path/filepath"
)

// assets holds the sample site (assets/site) and its server side
// (assets/server: a small PHP app, its config and a SQLite .dump).
//
//go:embed all:assets
var assets embed.FS

// materialize copies the embedded tree under name into dir.
func materialize(name, dir string) error {
	sub, err := fs.Sub(assets, "assets/"+name)
	if err != nil {
		return err
	}
	return fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := fs.ReadFile(sub, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}

// sitePages lists the sample site's page URLs ("/", "/about.html", …).
func sitePages() ([]string, error) {
	var out []string
	err := fs.WalkDir(assets, "assets/site", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("assets/site", p)
		u := "/" + filepath.ToSlash(rel)
		if filepath.Base(u) == "index.html" {
			u = u[:len(u)-len("index.html")]
		}
		out = append(out, u)
		return nil
	})
	return out, err
}
