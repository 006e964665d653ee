package ignore

import (
	"strings"
	"testing"
)

// refLimit bounds the inputs given to the backtracking reference.
const refLimit = 64

// FuzzMatch compiles newline-separated patterns and matches a path. It
// must never panic; on clean paths the result must agree with refExcluded
// (git's algorithm) unless that runs out of steps, and a pattern New
// refuses must be one git would never match the path with. The matcher's
// own running time is linear, so the fuzzer's hang detection guards
// against exponential backtracking.
func FuzzMatch(f *testing.F) {
	for _, tc := range gitignoreCases {
		for _, p := range append(tc.match, tc.noMatch...) {
			path, isDir := splitDir(p)
			f.Add(strings.Join(tc.patterns, "\n"), path, isDir)
		}
	}
	for _, tc := range wildmatchCases {
		f.Add("/"+tc.pattern, tc.text, false)
		f.Add(tc.pattern, tc.text, true)
	}
	f.Add(strings.Repeat("a*", 20)+"b", strings.Repeat("a", 60), false)
	f.Add("a/**/b\n!a/**/c/b\n**/", "a/x/c/b", true)
	f.Fuzz(func(t *testing.T, patterns, path string, isDir bool) {
		lines := strings.Split(patterns, "\n")
		m, err := New(lines)
		if err == nil {
			m.Match(path, isDir)
		}
		if !cleanPath(path) || len(path) > refLimit || len(patterns) > refLimit {
			return
		}
		if err == nil {
			want, ok := refExcluded(lines, path, isDir)
			if got := m.Match(path, isDir); ok && got != want {
				t.Fatalf("patterns %q, path %q (directory %v): Match %v, git's algorithm %v", lines, path, isDir, got, want)
			}
			return
		}
		for _, line := range lines {
			if strings.ContainsRune(line, 0) {
				continue // C strings end at NUL: git would see another pattern
			}
			excluded, ok := refExcluded([]string{line}, path, isDir)
			if _, err := New([]string{line}); err != nil && ok && excluded {
				t.Fatalf("New refuses %q (%v), but git would exclude %q with it", line, err, path)
			}
		}
	})
}

// cleanPath reports whether p is a path Match documents: relative,
// slash-separated, without empty, "." or ".." components or NUL bytes.
func cleanPath(p string) bool {
	if p == "" || strings.ContainsRune(p, 0) {
		return false
	}
	for c := range strings.SplitSeq(p, "/") {
		if c == "" || c == "." || c == ".." {
			return false
		}
	}
	return true
}
