package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/warc"
)

// TestDocsCommandsAreTested: every `lazarus …` command in a shell block of
// README.md or docs/*.md is run by a testscript under testdata/ (any
// directory), so the documentation shows only commands that work.
//
// Which commands: the fenced blocks whose info string is sh, shell, bash
// (every line) or console (the lines after a "$ " prompt), lines joined
// at a trailing backslash, comments dropped, split into simple commands
// at |, ||, &&, ; and &, redirections (2>&1, >file) dropped. A command is a lazarus command when its command
// word, after VAR=value assignments and sudo/env/time/nohup/exec, is
// `lazarus`, a path ending in /lazarus, or `go run` of ./cmd/lazarus
// (or the module's cmd/lazarus). In a testscript, `exec lazarus …` lines
// count, and so do the lazarus commands of the shell script an `exec sh
// -c '…'` (or bash) line runs, and of the script's *.sh files.
//
// How commands compare (the normalisation): the subcommand (and for
// `help`, the command it names) must be the same, so must the number of
// positional arguments, and the flags are compared as a set of names,
// each with its value generalised:
//   - -x and --x are one flag, --x=V and --x V one flag with its value;
//     which flags take a value is read from `lazarus help SUBCOMMAND`,
//     and a flag it does not list fails the test (the docs name a flag
//     that does not exist);
//   - --source SPEC is its kind, the word before "=" (wayback, commoncrawl,
//     cdx, pywb, memento, warc, dir, live): a base URL or a path is a
//     placeholder, the kind of archive is not;
//   - --key FILE is owner.key or server.key by its base name (verify
//     with owner.key also makes a trial restore), else FILE;
//   - --redundancy is auto, max or RATIO;
//   - every other value is a placeholder: URLs, paths, sizes, times,
//     names and commands (--dump 'db=mysqldump …' matches --dump 'db=cat
//     db.sql'); a flag given twice counts once;
//   - recover, status and capture without --source read their default
//     sources (recover: wayback, commoncrawl and live; status and capture:
//     wayback and commoncrawl), so a test that names each of those kinds,
//     pointed at local stand-ins, runs the documented command.
//
// A documented command is run when a testscript command has the same
// subcommand and every one of its flags and values, and beyond them only
// the harness flags that point a command at loopback stand-ins or make
// it fast (harnessFlags). Commands that cannot be run here are listed in
// knownExceptions, with the reason; an exception that no longer matches a
// documented command, or that a testscript now runs, fails the test.
func TestDocsCommandsAreTested(t *testing.T) {
	var docs []string
	docs = append(docs, "../../README.md")
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs/*.md (%v)", err)
	}
	docs = append(docs, pages...)

	var tested []docCommand
	err = filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".txt") {
			return err
		}
		cmds, err := scriptCommands(p)
		tested = append(tested, cmds...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(tested) < 50 {
		t.Fatalf("found only %d lazarus commands in the testscripts: the extractor is broken", len(tested))
	}
	flagsOf := helpFlags(t)
	var testedSigs []signature
	for _, c := range tested {
		if s, err := normalise(c.words, flagsOf); err == nil {
			s.where = c.where
			testedSigs = append(testedSigs, s)
		} // usage tests run bad commands on purpose
	}

	exceptionUsed := map[string]bool{}
	documented := 0
	for _, doc := range docs {
		cmds, err := docCommands(doc)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(doc) == "README.md" && len(cmds) < 5 {
			t.Fatalf("found only %d lazarus commands in README.md: the extractor is broken", len(cmds))
		}
		documented += len(cmds)
		for _, c := range cmds {
			where := strings.TrimPrefix(c.where, "../../")
			sig, err := normalise(c.words, flagsOf)
			if err != nil {
				t.Errorf("%s: %s: %v", where, c.text, err)
				continue
			}
			key := sig.String()
			covered := slices.ContainsFunc(testedSigs, func(ts signature) bool { return sig.coveredBy(ts) })
			if reason, ok := knownExceptions[key]; ok {
				exceptionUsed[key] = true
				if covered {
					t.Errorf("%s: %s is run by a testscript now: remove it from knownExceptions (%s)", where, key, reason)
				}
				continue
			}
			if !covered {
				t.Errorf("%s: no testscript under cmd/lazarus/testdata runs\n\t%s\n\tnormalised: %s\n\tnearest tested: %s",
					where, c.text, key, nearest(sig, testedSigs))
			}
		}
	}
	for key, reason := range knownExceptions {
		if !exceptionUsed[key] {
			t.Errorf("knownExceptions: %s (%s) is in no document any more: remove it", key, reason)
		}
	}
	t.Logf("%d documented lazarus commands, %d run by testscripts, %d known exceptions", documented, len(testedSigs), len(knownExceptions))
}

// harnessFlags may be given by a testscript beyond the documented
// command's flags: they point the command at loopback stand-ins or make
// it fast, and change nothing else it does.
var harnessFlags = map[string]bool{
	"rate":         true, // requests per minute: loopback servers need no politeness
	"site-rate":    true, // capture's crawl of the site, likewise
	"archive-rate": true, // capture's audit of the archives, likewise
	"spn":          true, // capture's Save Page Now endpoint: the archivetest stand-in
}

// knownExceptions are documented commands no testscript can run here,
// keyed by their normalised form (signature.String), with the reason.
// None today: the commands that need the internet run against local
// stand-ins (testdata/docs: archivetest's Wayback, Common Crawl and pywb
// servers for --source wayback, commoncrawl and pywb and the default
// sources, its Save Page Now server for lazarus capture).
var knownExceptions = map[string]string{}

// defaultSources are the --source kinds a command reads when given none
// (recover.go, status.go and capture.go).
var defaultSources = map[string][]string{
	"recover": {"wayback", "commoncrawl", "live"},
	"status":  {"wayback", "commoncrawl"},
	"capture": {"wayback", "commoncrawl"},
}

// docCommand is one lazarus command line and where it was found.
type docCommand struct {
	where string   // FILE:LINE
	text  string   // the line as written
	words []string // after lazarus: the arguments, unquoted
}

// signature is a normalised command: see TestDocsCommandsAreTested.
type signature struct {
	sub   string   // subcommand, "help CMD", or a global flag
	args  []string // positional arguments, each "ARG"
	flags []string // sorted, distinct: "name" or "name=value"
	where string
}

func (s signature) String() string {
	parts := append([]string{s.sub}, s.args...)
	for _, f := range s.flags {
		parts = append(parts, "--"+f)
	}
	return strings.Join(parts, " ")
}

// coveredBy: t runs s (same subcommand and arguments, every flag of s,
// and beyond them harness flags only).
func (s signature) coveredBy(t signature) bool {
	if s.sub != t.sub || !slices.Equal(s.args, t.args) {
		return false
	}
	for _, f := range s.flags {
		if !slices.Contains(t.flags, f) {
			return false
		}
	}
	for _, f := range t.flags {
		name, _, _ := strings.Cut(f, "=")
		if !slices.Contains(s.flags, f) && !harnessFlags[name] {
			return false
		}
	}
	return true
}

// nearest names the tested command of the same subcommand that differs
// from s in the fewest flags, and how.
func nearest(s signature, tested []signature) string {
	best, bestD := "none with this subcommand", -1
	for _, t := range tested {
		if t.sub != s.sub {
			continue
		}
		var missing, extra []string
		for _, f := range s.flags {
			if !slices.Contains(t.flags, f) {
				missing = append(missing, "--"+f)
			}
		}
		for _, f := range t.flags {
			name, _, _ := strings.Cut(f, "=")
			if !slices.Contains(s.flags, f) && !harnessFlags[name] {
				extra = append(extra, "--"+f)
			}
		}
		if d := len(missing) + len(extra); bestD < 0 || d < bestD {
			bestD = d
			best = fmt.Sprintf("%s (%s; lacks %v, adds %v)", t.String(), t.where, missing, extra)
		}
	}
	return best
}

// helpFlags returns, per subcommand, its flags and whether each takes a
// value, as `lazarus help SUBCOMMAND` lists them ("  -name TYPE", a bool
// without TYPE).
func helpFlags(t *testing.T) map[string]map[string]bool {
	t.Helper()
	line := regexp.MustCompile(`^  -([a-z0-9-]+)( \S.*)?$`)
	out := map[string]map[string]bool{}
	for _, c := range commands() {
		var buf bytes.Buffer
		if code := help([]string{c.name}, &buf, io.Discard); code != exitOK {
			t.Fatalf("lazarus help %s: exit %d", c.name, code)
		}
		flags := map[string]bool{}
		_, list, ok := strings.Cut(buf.String(), "\nFlags:\n")
		if !ok && c.name != "version" && c.name != "help" {
			t.Fatalf("lazarus help %s lists no flags", c.name)
		}
		for _, l := range strings.Split(list, "\n") {
			if m := line.FindStringSubmatch(l); m != nil {
				flags[m[1]] = m[2] != ""
			}
		}
		out[c.name] = flags
	}
	return out
}

// normalise turns the arguments after `lazarus` into a signature.
func normalise(words []string, flagsOf map[string]map[string]bool) (signature, error) {
	if len(words) == 0 {
		return signature{sub: "(none)"}, nil
	}
	switch w := words[0]; {
	case w == "help" && len(words) == 2:
		if _, ok := flagsOf[words[1]]; !ok && words[1] != "help" {
			return signature{}, fmt.Errorf("lazarus help %s: no such command", words[1])
		}
		return signature{sub: "help " + words[1]}, nil
	case w == "help" || w == "-h" || w == "-help" || w == "--help" || w == "-version" || w == "--version":
		if len(words) > 1 {
			return signature{}, fmt.Errorf("%s takes no arguments", w)
		}
		return signature{sub: strings.TrimLeft(w, "-")}, nil
	}
	sub := words[0]
	flags, ok := flagsOf[sub]
	if !ok {
		return signature{}, fmt.Errorf("no such command %q", sub)
	}
	s := signature{sub: sub}
	set := map[string]bool{}
	sources := false
	for i := 1; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "-") || w == "-" || w == "--" {
			s.args = append(s.args, "ARG")
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(w, "-"), "=")
		if name == "h" || name == "help" {
			set["help"] = true
			continue
		}
		takesValue, known := flags[name]
		if !known {
			return signature{}, fmt.Errorf("lazarus %s has no flag --%s (lazarus help %s)", sub, name, sub)
		}
		if !takesValue {
			set[name] = true
			continue
		}
		if !hasVal {
			if i+1 == len(words) {
				return signature{}, fmt.Errorf("--%s needs a value", name)
			}
			i++
			val = words[i]
		}
		switch name {
		case "source":
			sources = true
			kind, _, _ := strings.Cut(val, "=")
			set["source="+strings.ToLower(kind)] = true
		case "key":
			switch b := filepath.Base(val); b {
			case "owner.key", "server.key":
				set["key="+b] = true
			default:
				set["key=FILE"] = true
			}
		case "redundancy":
			switch val {
			case "auto", "max":
				set["redundancy="+val] = true
			default:
				set["redundancy=RATIO"] = true
			}
		default:
			set[name] = true
		}
	}
	if !sources && !set["help"] {
		for _, kind := range defaultSources[sub] {
			set["source="+kind] = true
		}
	}
	for f := range set {
		s.flags = append(s.flags, f)
	}
	sort.Strings(s.flags)
	return s, nil
}

// docCommands returns the lazarus commands of a Markdown file's shell
// blocks.
func docCommands(path string) ([]docCommand, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []docCommand
	fence, info := "", ""
	pending, start := "", 0
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if fence == "" {
			if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
				fence, info = trimmed[:3], strings.Fields(trimmed[3:] + " x")[0]
			}
			continue
		}
		if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
			fence = ""
			continue
		}
		switch info {
		case "sh", "shell", "bash", "zsh":
		case "console", "shell-session":
			if pending == "" {
				rest, ok := strings.CutPrefix(line, "$ ")
				if !ok {
					continue
				}
				line = rest
			}
		default:
			continue
		}
		if pending == "" {
			start = n
		}
		if body, ok := strings.CutSuffix(line, "\\"); ok {
			pending += body + " "
			continue
		}
		text := strings.TrimSpace(pending + line)
		pending = ""
		for _, words := range shellCommands(text) {
			if args, ok := lazarusArgs(words); ok {
				out = append(out, docCommand{where: fmt.Sprintf("%s:%d", path, start), text: text, words: args})
			}
		}
	}
	return out, sc.Err()
}

// scriptCommands returns the lazarus commands a testscript runs.
func scriptCommands(path string) ([]docCommand, error) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		return nil, err
	}
	var out []docCommand
	add := func(n int, text string, words []string) {
		out = append(out, docCommand{where: fmt.Sprintf("%s:%d", path, n), text: text, words: words})
	}
	for i, line := range strings.Split(string(ar.Comment), "\n") {
		words := scriptWords(line)
		// Conditions and negation: "! exec …", "[exec:wget] exec …".
		for len(words) > 0 && (words[0] == "!" || words[0] == "?" || strings.HasPrefix(words[0], "[")) {
			words = words[1:]
		}
		if len(words) > 0 && words[0] == "exec" {
			words = words[1:]
		}
		if args, ok := lazarusArgs(words); ok {
			add(i+1, line, args)
			continue
		}
		if len(words) >= 3 && (words[0] == "sh" || words[0] == "bash") && words[1] == "-c" {
			for _, cmd := range shellCommands(words[2]) {
				if args, ok := lazarusArgs(cmd); ok {
					add(i+1, line, args)
				}
			}
		}
	}
	for _, f := range ar.Files {
		if !strings.HasSuffix(f.Name, ".sh") {
			continue
		}
		for i, line := range strings.Split(string(f.Data), "\n") {
			for _, cmd := range shellCommands(line) {
				if args, ok := lazarusArgs(cmd); ok {
					add(i+1, f.Name+": "+line, args)
				}
			}
		}
	}
	return out, nil
}

// assignment is a shell variable assignment before a command.
var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// lazarusArgs returns the arguments of a simple command that runs
// lazarus, and whether it does.
func lazarusArgs(words []string) ([]string, bool) {
	for len(words) > 0 {
		w := words[0]
		switch {
		case w == "sudo" || w == "env" || w == "time" || w == "nohup" || w == "exec" || w == "command":
			words = words[1:]
		case assignment.MatchString(w):
			words = words[1:]
		case w == "lazarus" || strings.HasSuffix(w, "/lazarus"):
			return words[1:], true
		case w == "go" && len(words) >= 3 && words[1] == "run":
			pkg, _, _ := strings.Cut(words[2], "@")
			if pkg == "./cmd/lazarus" || pkg == "github.com/lazarus-preserve/lazarus/cmd/lazarus" {
				return words[3:], true
			}
			return nil, false
		default:
			return nil, false
		}
	}
	return nil, false
}

// shellCommands splits a line of shell into simple commands of unquoted
// words: quotes and backslashes as sh reads them, $(…) and `…` kept
// inside their word, a # at the start of a word ends the line, and |,
// ||, &, &&, ; ( and ) end a command. Enough for documentation, not a
// shell.
func shellCommands(line string) [][]string {
	var cmds [][]string
	var words []string
	var word strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			words = append(words, word.String())
		}
		word.Reset()
		inWord = false
	}
	endCmd := func() {
		endWord()
		if len(words) > 0 {
			cmds = append(cmds, words)
		}
		words = nil
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			endWord()
		case c == '#' && !inWord:
			endCmd()
			return cmds
		case c == '>' || c == '<' || (c == '&' && i+1 < len(line) && line[i+1] == '>'):
			// A redirection (2>&1, >/dev/null, &>log, <in) is no word:
			// drop a file descriptor number before it, and its target.
			if inWord && strings.Trim(word.String(), "0123456789") == "" {
				word.Reset()
				inWord = false
			}
			endWord()
			for i+1 < len(line) && strings.IndexByte("<>&|", line[i+1]) >= 0 {
				i++
			}
			for i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t') {
				i++
			}
			for i+1 < len(line) && strings.IndexByte(" \t|&;()", line[i+1]) < 0 {
				i++
			}
		case c == '|' || c == '&' || c == ';' || c == '(' || c == ')':
			endCmd()
		case c == '\'':
			inWord = true
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				j = len(line) - i - 1
			}
			word.WriteString(line[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
					i++
				}
				word.WriteByte(line[i])
			}
		case c == '\\' && i+1 < len(line):
			inWord = true
			i++
			word.WriteByte(line[i])
		case c == '$' && i+1 < len(line) && line[i+1] == '(':
			inWord = true
			depth := 0
			for ; i < len(line); i++ {
				word.WriteByte(line[i])
				if line[i] == '(' {
					depth++
				} else if line[i] == ')' {
					if depth--; depth == 0 {
						break
					}
				}
			}
		case c == '`':
			inWord = true
			j := strings.IndexByte(line[i+1:], '`')
			if j < 0 {
				j = len(line) - i - 1
			}
			word.WriteString(line[i : i+j+2])
			i += j + 1
		default:
			inWord = true
			word.WriteByte(c)
		}
	}
	endCmd()
	return cmds
}

// scriptWords splits a testscript line into words as testscript does:
// single quotes quote (two of them inside quotes are one), a line starting with
// # is a comment; $VAR stays as written.
func scriptWords(line string) []string {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return nil
	}
	var words []string
	var word strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '\'' && i+1 < len(line) && line[i+1] == '\'':
			word.WriteByte('\'')
			i++
		case c == '\'':
			quoted, inWord = !quoted, true
		case !quoted && (c == ' ' || c == '\t'):
			if inWord {
				words = append(words, word.String())
			}
			word.Reset()
			inWord = false
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	return words
}

// TestDocsShellCommands pins the extractor and the normalisation on
// examples whose right answer is plain.
func TestDocsShellCommands(t *testing.T) {
	for _, c := range []struct {
		line string
		want [][]string
	}{
		{`lazarus verify --url https://example.org/ --key server.key   # from cron`, [][]string{{"lazarus", "verify", "--url", "https://example.org/", "--key", "server.key"}}},
		{`lazarus inject --dump 'db=mysqldump --single-transaction app' --exclude "*.log"`, [][]string{{"lazarus", "inject", "--dump", "db=mysqldump --single-transaction app", "--exclude", "*.log"}}},
		{`SOURCE_DATE_EPOCH=$(( $(date +%s) - 7200 )) lazarus status --json; echo "exit=$?"`, [][]string{{"SOURCE_DATE_EPOCH=$(( $(date +%s) - 7200 ))", "lazarus", "status", "--json"}, {"echo", "exit=$?"}}},
		{`sudo install -m 755 "$(go env GOPATH)/bin/lazarus" /usr/local/bin/lazarus`, [][]string{{"sudo", "install", "-m", "755", "$(go env GOPATH)/bin/lazarus", "/usr/local/bin/lazarus"}}},
		{`python3 -m http.server 8000 --directory site &`, [][]string{{"python3", "-m", "http.server", "8000", "--directory", "site"}}},
		{`lazarus verify --url $URL/ --key k 2>&1; echo "exit=$?"`, [][]string{{"lazarus", "verify", "--url", "$URL/", "--key", "k"}, {"echo", "exit=$?"}}},
		{`lazarus status --json >/dev/null 2> err.txt | grep x`, [][]string{{"lazarus", "status", "--json"}, {"grep", "x"}}},
	} {
		if got := shellCommands(c.line); !slices.EqualFunc(got, c.want, slices.Equal) {
			t.Errorf("shellCommands(%q) = %q, want %q", c.line, got, c.want)
		}
	}
	if _, ok := lazarusArgs(shellCommands(`sudo install -m 755 "$(go env GOPATH)/bin/lazarus" /usr/local/bin/lazarus`)[0]); ok {
		t.Error("install of the binary taken for a lazarus command")
	}
	if args, ok := lazarusArgs([]string{"go", "run", "./cmd/lazarus", "demo"}); !ok || !slices.Equal(args, []string{"demo"}) {
		t.Errorf("go run ./cmd/lazarus demo: %q %v", args, ok)
	}
	if got := scriptWords(`exec sh -c 'lazarus verify --url '$URL'/ --key k 2>&1; echo "exit=$?"'`); !slices.Equal(got, []string{"exec", "sh", "-c", `lazarus verify --url $URL/ --key k 2>&1; echo "exit=$?"`}) {
		t.Errorf("scriptWords: %q", got)
	}

	flagsOf := helpFlags(t)
	norm := func(line string) signature {
		t.Helper()
		args, ok := lazarusArgs(shellCommands(line)[0])
		if !ok {
			t.Fatalf("%s: not a lazarus command", line)
		}
		s, err := normalise(args, flagsOf)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return s
	}
	doc := norm(`lazarus recover --url https://example.org/ --key /etc/owner.key --out restored`)
	if want := "recover --key=owner.key --out --source=commoncrawl --source=live --source=wayback --url"; doc.String() != want {
		t.Errorf("normalised %q, want %q", doc, want)
	}
	for line, covers := range map[string]bool{
		`lazarus recover --url $URL/ --key keys/owner.key --out o --source wayback=$A --source commoncrawl=$A,$A --source live --rate 6000`: true,
		`lazarus recover --url=$URL/ -key keys/owner.key -out o -source wayback=$A -source commoncrawl=$A,$A -source=live`:                  true,
		`lazarus recover --url $URL/ --key keys/owner.key --out o --source wayback=$A --source commoncrawl=$A,$A`:                           false, // live not read
		`lazarus recover --url $URL/ --key keys/server.key --out o --source wayback=$A --source commoncrawl=$A,$A --source live`:            false, // another key
		`lazarus recover --url $URL/ --key keys/owner.key --out o --source wayback=$A --source commoncrawl=$A,$A --source live --force`:     false, // another command
	} {
		if got := doc.coveredBy(norm(line)); got != covers {
			t.Errorf("%s covers %s: %v, want %v", line, doc, got, covers)
		}
	}
	if _, err := normalise([]string{"verify", "--no-such-flag"}, flagsOf); err == nil {
		t.Error("a flag lazarus does not have was accepted")
	}
}

// init lets the testscripts' lazarus capture poll Save Page Now's stand-in
// quickly: LAZARUS_TEST_CAPTURE_POLL=1ms (the first poll; later ones wait
// up to five times as long).
func init() {
	if d, err := time.ParseDuration(os.Getenv("LAZARUS_TEST_CAPTURE_POLL")); err == nil && d > 0 {
		capturePollStart, capturePollMax = d, 5*d
	}
}

// TestDocsScripts runs testdata/docs/*.txt: the README's walkthrough and
// the docs' examples, against loopback servers and local archives.
func TestDocsScripts(t *testing.T) {
	readme, err := filepath.Abs("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/docs",
		Setup: func(env *testscript.Env) error {
			env.Setenv("README", readme)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"serve":      cmdServe,
			"archiveof":  cmdArchiveOf,
			"warcof":     cmdWarcOf,
			"transcript": cmdTranscript,
		},
	})
}

// transcript FILE COMMAND: the console block of the Markdown FILE that
// starts with "$ COMMAND" shows what the last command printed on stdout:
// its lines appear there in order (lines may be left out, none changed
// or added), compared with numbers and generation ids generalised (a
// port, a size or a time may differ from run to run).
func cmdTranscript(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: transcript FILE COMMAND")
	}
	raw, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	_, block, ok := strings.Cut(string(raw), "```console\n$ "+args[1]+"\n")
	if !ok {
		ts.Fatalf("%s has no console block starting with $ %s", args[0], args[1])
	}
	block, _, _ = strings.Cut(block, "```")
	shown := strings.Split(strings.TrimRight(block, "\n"), "\n")
	printed := strings.Split(ts.ReadFile("stdout"), "\n")
	// Ids, numbers and durations (in whatever unit time.Duration picks:
	// the demo's 224ms is 1.026s on a loaded machine) are placeholders.
	duration := regexp.MustCompile(`\b([0-9]+(\.[0-9]+)?(ns|µs|ms|s|m|h))+\b`)
	number := regexp.MustCompile(`[0-9a-f]{32}|[0-9]+(\.[0-9]+)?`)
	generalise := func(s string) string { return number.ReplaceAllString(duration.ReplaceAllString(s, "D"), "N") }
	at := 0
	for _, line := range shown {
		if strings.TrimSpace(line) == "" {
			continue
		}
		want := generalise(line)
		for at < len(printed) && generalise(printed[at]) != want {
			at++
		}
		if at == len(printed) {
			ts.Fatalf("%s shows a line the command did not print (in this order):\n%s", args[0], line)
		}
		at++
	}
}

// archiveof [-pywb COLL] [-spn] [-anonymous] SITE_URL [[-ago DURATION] DIR]...:
// a local archive holding each DIR's pages as captures of SITE_URL, made
// DURATION ago (an hour after now without -ago); $ARCHIVE is its base
// URL. It speaks the Wayback Machine's CDX API, Memento and Common
// Crawl's index, or with -pywb those of one pywb collection COLL. With
// -spn, $SPN is a Save Page Now endpoint capturing SITE_URL's pages into
// it, for the key AKEY:captureSecret, and with -anonymous also for
// requests without keys (refused without it, as the Internet Archive
// does).
func cmdArchiveOf(ts *testscript.TestScript, neg bool, args []string) {
	var cfg archivetest.Config
	withSPN, anonymous := false, ""
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch {
		case args[0] == "-pywb" && len(args) > 1:
			cfg.Pywb, args = &archivetest.PywbConfig{Coll: args[1]}, args[2:]
		case args[0] == "-spn":
			withSPN, args = true, args[1:]
		case args[0] == "-anonymous":
			anonymous, args = archivetest.AnonymousCapture, args[1:]
		default:
			ts.Fatalf("archiveof: unknown option %s", args[0])
		}
	}
	if len(args) < 1 {
		ts.Fatalf("usage: archiveof [-pywb COLL] [-spn] [-anonymous] SITE_URL [[-ago DURATION] DIR]...")
	}
	site := strings.TrimSuffix(args[0], "/") + "/"
	var caps []archivetest.Capture
	for args = args[1:]; len(args) > 0; args = args[1:] {
		at := time.Now().Add(time.Hour) // after any generation made now
		if args[0] == "-ago" && len(args) > 2 {
			ago, err := time.ParseDuration(args[1])
			ts.Check(err)
			at, args = time.Now().Add(-ago), args[2:]
		}
		for _, p := range sitePages(ts, args[0]) {
			body, err := os.ReadFile(p.file)
			ts.Check(err)
			caps = append(caps, archivetest.Capture{URL: site + p.path, Time: at.Truncate(time.Second), Body: body})
		}
	}
	srv, err := archivetest.New(caps, cfg)
	ts.Check(err)
	ts.Defer(srv.Close)
	ts.Setenv("ARCHIVE", srv.URL)
	if withSPN {
		host := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSuffix(site, "/"), "http://"), "https://")
		spn, err := archivetest.NewSPN(srv, archivetest.SPNConfig{Access: "AKEY", Secret: captureSecret, Allow: []string{host}, Anonymous: anonymous})
		ts.Check(err)
		ts.Defer(spn.Close)
		ts.Setenv("SPN", spn.URL)
	}
}

// warcof SITE_URL DIR FILE: write DIR's pages into the WARC FILE as
// responses for SITE_URL's pages, as a crawl would (the walkthrough's
// stand-in for wget --warc-file where wget is not installed).
func cmdWarcOf(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: warcof SITE_URL DIR FILE")
	}
	site := strings.TrimSuffix(args[0], "/") + "/"
	f, err := os.Create(ts.MkAbs(args[2]))
	ts.Check(err)
	defer f.Close()
	w := warc.NewWriter(f, strings.HasSuffix(args[2], ".gz"))
	for _, p := range sitePages(ts, args[1]) {
		body, err := os.ReadFile(p.file)
		ts.Check(err)
		msg := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		h := warc.Header{}
		h.Set("WARC-Type", "response")
		h.Set("WARC-Target-URI", site+p.path)
		h.Set("Content-Type", "application/http; msgtype=response")
		ts.Check(w.WriteRecord(h, []byte(msg)))
	}
	ts.Check(f.Close())
}

type sitePage struct{ file, path string }

// sitePages lists DIR's .html files with their URL paths ("" for the
// root's index.html, "a/" for a/index.html).
func sitePages(ts *testscript.TestScript, dir string) []sitePage {
	root := ts.MkAbs(dir)
	var pages []sitePage
	ts.Check(filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		pages = append(pages, sitePage{p, strings.TrimSuffix(filepath.ToSlash(rel), "index.html")})
		return nil
	}))
	return pages
}
