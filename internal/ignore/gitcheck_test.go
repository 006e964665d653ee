package ignore

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAgainstGit runs every case of gitignoreCases through
// "git check-ignore --no-index" and compares with what a walker using
// Match leaves out (excludedInTree: the path or a parent is excluded).
// Parent directories of the listed paths are checked too, as directories.
func TestAgainstGit(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed; skipping the cross-check with git check-ignore")
	}
	for _, tc := range gitignoreCases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := New(tc.patterns)
			if err != nil {
				t.Fatal(err)
			}
			dirs, files, conflicting := gitPaths(append(slices.Clone(tc.match), tc.noMatch...))
			// Directories exist on disk (git asks lstat whether a path is
			// a directory); files need not. Files named like a directory
			// are asked in a second, empty repository.
			for _, run := range []struct{ dirs, files []string }{{dirs, files}, {nil, conflicting}} {
				ignored := gitIgnored(t, gitPath, tc.patterns, run.dirs, run.files)
				for _, p := range run.dirs {
					if got, want := excludedInTree(m, p, true), ignored[p]; got != want {
						t.Errorf("%q: directory %q: excluded %v, git says %v", tc.patterns, p, got, want)
					}
				}
				for _, p := range run.files {
					if got, want := excludedInTree(m, p, false), ignored[p]; got != want {
						t.Errorf("%q: file %q: excluded %v, git says %v", tc.patterns, p, got, want)
					}
				}
			}
		})
	}
}

// gitPaths splits the test paths ("x/" for a directory) into directories
// (with all their parents), files, and files that have the name of one of
// those directories.
func gitPaths(list []string) (dirs, files, conflicting []string) {
	isDir := map[string]bool{}
	for _, p := range list {
		p, dir := splitDir(p)
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			isDir[d] = true
		}
		if dir {
			isDir[p] = true
		}
	}
	for _, p := range list {
		if p, dir := splitDir(p); !dir {
			if isDir[p] {
				conflicting = append(conflicting, p)
			} else {
				files = append(files, p)
			}
		}
	}
	for d := range isDir {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	return dirs, files, conflicting
}

// gitIgnored creates a repository with patterns in .git/info/exclude and
// the directories dirs, asks git which of dirs and files are ignored, and
// returns that set.
func gitIgnored(t *testing.T, gitPath string, patterns, dirs, files []string) map[string]bool {
	t.Helper()
	if len(dirs)+len(files) == 0 {
		return nil
	}
	repo := t.TempDir()
	git := func(stdin []byte, args ...string) ([]byte, error) {
		cmd := exec.Command(gitPath, append([]string{"-c", "core.ignorecase=false"}, args...)...)
		cmd.Dir, cmd.Env, cmd.Stdin = repo, gitEnv(repo), bytes.NewReader(stdin)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil && stderr.Len() > 0 {
			err = errors.New(err.Error() + ": " + stderr.String())
		}
		return out, err
	}
	if _, err := git(nil, "init", "-q", "."); err != nil {
		t.Fatalf("git init: %v", err)
	}
	exclude := strings.Join(patterns, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(repo, ".git", "info", "exclude"), []byte(exclude), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(repo, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	query := strings.Join(append(slices.Clone(dirs), files...), "\x00") + "\x00"
	out, err := git([]byte(query), "check-ignore", "--no-index", "--stdin", "-z")
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) { // 1: nothing ignored
		t.Fatalf("git check-ignore: %v", err)
	}
	ignored := map[string]bool{}
	for p := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		ignored[p] = p != ""
	}
	return ignored
}

// gitEnv is the environment minus GIT_* variables, with no user or system
// configuration.
func gitEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
}

// gridTree is a tree for TestAgainstGitGrid; "x/" is a directory.
var gridTree = []string{
	"a/b/c/", "a/b/c/hello.c", "a/b/x.log", "a/x.log", "a/bar", "a/b/c/d/",
	"hello.c", "hello.txt", "x.log", "keep.log", "bar", "ab", "axb", "aab",
	"foo/test.json", "foo/bar/hello.c", "foo/baz", "foobazbar", "foo/x/y/bar/",
	"doc/frotz/f", "x/doc/frotz/f", "abc/x/y", "abc/z", "deep/foo/bar/baz/x",
	"build/keep/k", "build/other", "!important!.txt", "#foo", "foo ", " foo",
	"ten", "ton", "t]n", "a1B", "a-b", "a]b", "é", "éx", `a\b`, "star*", "q?",
	"[x]", "y", "sp ace/f", ".hidden", "a.b.c",
}

// gridPatterns are checked one at a time, then some lists together.
var gridPatterns = [][]string{
	{"*"}, {"?"}, {"**"}, {"**/"}, {"/**"}, {"*/"}, {"a/**"}, {"a/**/c"},
	{"**/c"}, {"**/b/**"}, {"*/b"}, {"a/*/c"}, {"a/*"}, {"/a/*"},
	{"foo/**/bar"}, {"foo**bar"}, {"*foo*"}, {"*.c"}, {"hello.*"}, {"h*o.?"},
	{"/*.log"}, {"**/*.log"}, {"a/**/*.log"}, {"[ab]*"}, {"[!a-h]*"},
	{"t[a-z]n"}, {"t[]]n"}, {"[[:alpha:]][[:digit:]][[:upper:]]"},
	{"[[:punct:]]*"}, {`\!important!.txt`}, {`\#foo`}, {`foo\ `}, {" foo"},
	{`star\*`}, {`q\?`}, {`\[x]`}, {"[x]"}, {"é"}, {"?x"}, {"??"}, {"[^t]*"},
	{"a[]-]b"}, {`a\\b`}, {"a/"}, {"/a/"}, {"b/"}, {"c/"}, {"frotz/"},
	{"doc/frotz/"}, {"doc/frotz"}, {"/doc"}, {"build/"}, {"build/*"},
	{"*.*.*"}, {".*"}, {"a/b/c/**/"}, {"a/b/**/d"}, {"**/**/y"}, {"*/*/*"},
	{"build/*", "!build/keep"}, {"*", "!*/", "!*.c"}, {"/*", "!/foo", "/foo/*", "!/foo/bar"},
	{"*.log", "!a/*.log", "a/b/*.log"}, {"**/", "!a/", "!a/b/"}, {"!y", "y"},
}

// TestAgainstGitGrid compares each of gridPatterns with git on gridTree.
func TestAgainstGitGrid(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed; skipping the cross-check with git check-ignore")
	}
	dirs, files, conflicting := gitPaths(gridTree)
	if len(conflicting) != 0 {
		t.Fatalf("test bug: gridTree has conflicting paths %q", conflicting)
	}
	for _, patterns := range gridPatterns {
		m, err := New(patterns)
		if err != nil {
			t.Fatalf("New(%q): %v", patterns, err)
		}
		ignored := gitIgnored(t, gitPath, patterns, dirs, files)
		for _, p := range append(slices.Clone(dirs), files...) {
			isDir := slices.Contains(dirs, p)
			if got, want := excludedInTree(m, p, isDir), ignored[p]; got != want {
				t.Errorf("%q: %q (directory %v): excluded %v, git says %v", patterns, p, isDir, got, want)
			}
		}
	}
}
