package injector_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/lazarus-preserve/lazarus/injector"
)

// Example preserves a server side (one directory of PHP) in the pages of
// a small static site, with a passphrase (keys from `lazarus keygen`
// would go in ServerKey instead).
func Example() {
	dir, err := os.MkdirTemp("", "lazarus-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	site, server := filepath.Join(dir, "site"), filepath.Join(dir, "server")
	os.MkdirAll(site, 0o755)
	os.MkdirAll(server, 0o755)
	links := ""
	for _, p := range []string{"a", "b", "c"} {
		os.WriteFile(filepath.Join(site, p+".html"), []byte("<html><body><p>"+p+"</p></body></html>"), 0o644)
		links += `<a href="` + p + `.html">` + p + `</a>`
	}
	os.WriteFile(filepath.Join(site, "index.html"), []byte("<html><body>"+links+"</body></html>"), 0o644)
	os.WriteFile(filepath.Join(server, "app.php"), []byte(`<?php echo "hello";`), 0o644)

	o := injector.DefaultOptions()
	o.SiteDir, o.StateDir, o.SiteURL = site, filepath.Join(dir, "state"), "https://example.org/"
	o.Includes = []injector.Include{{Path: server}}
	o.Passphrase, o.PassphraseWorkFactor = []byte("correct horse battery staple"), 10
	res, err := injector.Run(context.Background(), o)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("new generation: %v, segment %q over %d carrier pages\n", res.New, res.Segments[0].Name, res.Carriers)
	// Output:
	// new generation: true, segment "server" over 4 carrier pages
}
