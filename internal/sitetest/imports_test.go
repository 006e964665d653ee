package sitetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnlyTestsImportSitetest: the shared fixtures are for tests; a
// program importing them would carry test keys and helpers.
func TestOnlyTestsImportSitetest(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			if err == nil {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || strings.HasPrefix(p, filepath.Join(root, "internal", "sitetest")) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), `"github.com/lazarus-preserve/lazarus/internal/sitetest"`) {
			t.Errorf("%s imports the test fixtures", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
