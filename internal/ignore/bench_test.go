package ignore

import (
	"strings"
	"testing"
)

// benchPatterns is a typical --exclude list.
var benchPatterns = []string{"vendor/", "*.log", "/cache/**", "!keep.log", "node_modules", "**/tmp/*.swp", "*.[oa]"}

func benchMatch(b *testing.B, patterns []string, path string, isDir bool) {
	m, err := New(patterns)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(path)))
	b.ReportAllocs()
	for b.Loop() {
		m.Match(path, isDir)
	}
}

func BenchmarkMatch_7Patterns_File(b *testing.B) {
	benchMatch(b, benchPatterns, "wp-content/plugins/akismet/views/config.php", false)
}

func BenchmarkMatch_7Patterns_Dir(b *testing.B) {
	benchMatch(b, benchPatterns, "wp-content/plugins/akismet/views", true)
}

// BenchmarkMatch_Backtrack30 is a pattern that takes exponential time
// with naive backtracking, against a 1 KiB name that almost matches (the
// trailing "?" keeps the literal suffix check from deciding).
func BenchmarkMatch_Backtrack30(b *testing.B) {
	benchMatch(b, []string{strings.Repeat("*a", 30) + "*b?"}, strings.Repeat("a", 1024), false)
}

// BenchmarkMatch_DeepStarStar matches "**" groups against a 65-level path.
func BenchmarkMatch_DeepStarStar(b *testing.B) {
	benchMatch(b, []string{"**/a/**/b/**/c"}, strings.Repeat("a/b/", 32)+"c", false)
}
