package recover_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/lazarus-preserve/lazarus/injector"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// Not sitetest's fixture: an Example is read as documentation, so it
// builds its site with the public API alone.

// Example preserves a server side in a small static site's pages, then
// rebuilds it from copies of those pages alone (here the site's own
// directory stands in for a mirror or an archive; ParseSource also takes
// "wayback", "warc=FILE", "cdx=URL" and the others).
func Example() {
	dir, err := os.MkdirTemp("", "lazarus-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	site, server := filepath.Join(dir, "site"), filepath.Join(dir, "server")
	os.MkdirAll(site, 0o755)
	os.MkdirAll(server, 0o755)
	os.WriteFile(filepath.Join(site, "index.html"), []byte(`<html><body><a href="a.html">a</a></body></html>`), 0o644)
	os.WriteFile(filepath.Join(site, "a.html"), []byte(`<html><body><p>a</p></body></html>`), 0o644)
	os.WriteFile(filepath.Join(server, "app.php"), []byte(`<?php echo "hello";`), 0o644)
	passphrase := []byte("correct horse battery staple")

	io := injector.DefaultOptions()
	io.SiteDir, io.StateDir, io.SiteURL = site, filepath.Join(dir, "state"), "https://example.org/"
	io.Includes = []injector.Include{{Path: server}}
	io.Passphrase, io.PassphraseWorkFactor = passphrase, 10
	if _, err := injector.Run(context.Background(), io); err != nil {
		log.Fatal(err)
	}

	o := lzrecover.DefaultOptions()
	o.Passphrase, o.Out, o.SiteURL = passphrase, filepath.Join(dir, "restored"), "https://example.org/"
	src, err := lzrecover.ParseSource("dir="+site, nil)
	if err != nil {
		log.Fatal(err)
	}
	o.Sources = []lzrecover.Source{src}
	rep, err := lzrecover.Run(context.Background(), o)
	if err != nil {
		log.Fatal(err)
	}
	app, _ := os.ReadFile(filepath.Join(o.Out, "server", "app.php"))
	fmt.Printf("segment %s %s: %s\n", rep.Segments[0].Name, rep.Segments[0].Status, app)
	// Output:
	// segment server rebuilt: <?php echo "hello";
}

// ExampleOptions_Validate: every problem with the options at once, each
// naming its field.
func ExampleOptions_Validate() {
	err := lzrecover.Options{}.Validate()
	fmt.Println(err)
	// Output:
	// no output directory; recovery needs the owner key or the passphrase (or unsigned data allowed, for public data); no source to recover from
}
