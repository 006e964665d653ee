package site

import (
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/noatime"
)

// fileKind is what a site URL maps to in the site directory.
type fileKind int

const (
	kindMissing fileKind = iota // no file, or a path that cannot name one
	kindPage                    // an HTML file
	kindOther                   // a file that is not HTML
)

// isHTMLName reports whether a file name has an HTML extension: ".html",
// ".htm" or ".xhtml", in any case.
func isHTMLName(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".html", ".htm", ".xhtml":
		return true
	}
	return false
}

// fileName returns the slash path, relative to the site directory, named by
// the normalized site-relative URL path rel, and whether rel ends in "/".
// It returns false for paths that no file can have: with an escaped "/",
// "\" or NUL in a segment, an empty segment ("//"), or a "." or ".."
// segment.
func fileName(rel string) (name string, dir bool, ok bool) {
	segs := strings.Split(strings.TrimPrefix(rel, "/"), "/")
	dir = segs[len(segs)-1] == ""
	if dir {
		segs = segs[:len(segs)-1]
	}
	for i, s := range segs {
		d, err := url.PathUnescape(s)
		if err != nil || d == "" || d == "." || d == ".." || strings.ContainsAny(d, "/\\\x00") {
			return "", false, false
		}
		segs[i] = d
	}
	return strings.Join(segs, "/"), dir, true
}

// resolve maps the site-relative URL path rel to a file as a static file
// server does: "/x/" to x/index.html or x/index.htm; "/x" to the file x,
// else x.html, else x/index.html or x/index.htm, served at "/x/" (the
// server redirects there). It returns the slash path of the file, the URL
// path it is served at, and what the file is.
func (c *crawler) resolve(rel string) (file, at string, kind fileKind) {
	name, dir, ok := fileName(rel)
	if !ok {
		return "", rel, kindMissing
	}
	if dir {
		if f, ok := c.index(name); ok {
			return f, rel, kindPage
		}
		return "", rel, kindMissing
	}
	if c.isFile(name) {
		if isHTMLName(name) {
			return name, rel, kindPage
		}
		return name, rel, kindOther
	}
	if c.isFile(name + ".html") {
		return name + ".html", rel, kindPage
	}
	if f, ok := c.index(name); ok {
		return f, rel + "/", kindPage
	}
	return "", rel, kindMissing
}

// index returns the index page of the directory dir ("" for the root).
func (c *crawler) index(dir string) (string, bool) {
	for _, n := range []string{"index.html", "index.htm"} {
		if f := path.Join(dir, n); c.isFile(f) {
			return f, true
		}
	}
	return "", false
}

// isFile reports whether name is a regular file inside the site directory,
// following symbolic links that stay inside it.
func (c *crawler) isFile(name string) bool {
	fi, err := c.root.Stat(filepath.FromSlash(name))
	return err == nil && fi.Mode().IsRegular()
}

// readPage reads a page file and returns its size after htmlblock.Strip and
// its scan. Only the first maxReadBytes are read; a longer page's size is
// its file size.
func (c *crawler) readPage(file string) (int64, pageScan, error) {
	f, err := noatime.OpenIn(c.root, filepath.FromSlash(file))
	if err != nil {
		return 0, pageScan{}, err
	}
	defer f.Close()
	const limit = maxReadBytes
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return 0, pageScan{}, err
	}
	if int64(len(data)) > limit {
		fi, err := f.Stat()
		if err != nil {
			return 0, pageScan{}, err
		}
		return fi.Size(), scanPage(data[:limit], c.cfg.metaNames), nil
	}
	data = htmlblock.Strip(data)
	return int64(len(data)), scanPage(data, c.cfg.metaNames), nil
}

// htmlFiles returns the slash paths of the HTML files under the site
// directory, sorted. Symbolic links to regular files inside the directory
// count; linked directories are not entered. It fails with ErrTooManyPages
// beyond entriesPerPage × MaxPages directory entries.
func (c *crawler) htmlFiles() ([]string, error) {
	var out []string
	n, limit := 0, entriesPerPage*c.cfg.maxPages
	err := fs.WalkDir(c.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		if n++; n > limit {
			return fmt.Errorf("more than %d directory entries: %w", limit, ErrTooManyPages)
		}
		t := d.Type()
		if isHTMLName(p) && (t.IsRegular() || t&fs.ModeSymlink != 0 && c.isFile(p)) {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}
