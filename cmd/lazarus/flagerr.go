package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// flagError explains a flag the flag package refused, in the CLI's own
// lines: what was wrong, the closest flag for a name that does not
// exist, and where the flags are listed. The flag package's message and
// its page of usage are not printed: the one line that matters would be
// lost above it.
func flagError(w io.Writer, fs *flag.FlagSet, err error) {
	msg, suggest := flagProblem(fs, err.Error())
	errorf(w, "%s", msg)
	if suggest != "" {
		hintf(w, "did you mean --%s?", suggest)
	}
	hintf(w, "run '%s -h' for the flags", fs.Name())
}

// flagProblem rewords one of the flag package's errors (Go's wording,
// see flag.FlagSet.Parse) and returns, for an unknown name, the closest
// defined flag ("" when none is close).
func flagProblem(fs *flag.FlagSet, msg string) (problem, suggest string) {
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag --" + name, closestFlag(fs, name)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return "--" + name + " needs a value", ""
	}
	if rest, ok := strings.CutPrefix(msg, "invalid boolean value "); ok {
		value, name, _ := strings.Cut(rest, " for -")
		name, _, _ = strings.Cut(name, ":")
		return fmt.Sprintf("--%s=%s: want --%s alone, or =true or =false", name, strings.Trim(value, `"`), name), ""
	}
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		value, rest, _ := strings.Cut(rest, " for flag -")
		name, why, _ := strings.Cut(rest, ": ")
		// The CLI's own values name what they parse: `size "1TiB": want …`.
		if i := strings.Index(why, " "+value+": "); i >= 0 && !strings.Contains(why[:i], " ") {
			why = why[i+len(value)+3:]
		}
		return fmt.Sprintf("--%s %s: %s", name, value, valueWant(fs.Lookup(name), why)), ""
	}
	return msg, ""
}

// valueWant says what a flag takes, when the flag package's reason is
// strconv's bare "parse error"; a flag.Value of the CLI's own gives its
// own reason, kept as it is.
func valueWant(f *flag.Flag, why string) string {
	if why != "parse error" && why != "value out of range" || f == nil {
		return why
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return why
	}
	switch g.Get().(type) {
	case int, int64, uint, uint64:
		return "want a whole number"
	case float64:
		return "want a number"
	case time.Duration:
		return "want a duration such as 10m"
	}
	return why
}

// closestFlag returns the defined flag nearest to name by edit distance,
// if it is close enough to be a typo of it: at most a third of the
// name's letters (and at least one) differ.
func closestFlag(fs *flag.FlagSet, name string) string {
	best, bestDist := "", max(1, len(name)/3)+1
	fs.VisitAll(func(f *flag.Flag) {
		if d := editDistance(name, f.Name); d < bestDist {
			best, bestDist = f.Name, d
		}
	})
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes
// (flag names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
