package injector

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/ignore"
)

// allOrNothingSegment is the one segment of an --all-or-nothing run.
const allOrNothingSegment = "all"

// source is one segment's input and a description of where it came from.
type source struct {
	input  codec.Input
	origin []string // "include /srv/app", "dump db"
}

// collect gathers every include and runs every dump into files under tmp.
// Any unreadable source or failing dump aborts the run: nothing is
// silently left out.
//
// A dump's file gets mode 0600 and keeps the mtime recorded in dumps while
// its output is unchanged, so an unchanged database makes no new
// generation; dumps is updated.
func (o *Options) collect(ctx context.Context, tmp string, dumps map[string]dumpInfo, key stateKey) ([]source, []string, error) {
	bySeg := map[string]*source{}
	var warnings []string
	seg := func(name string) *source {
		if o.AllOrNothing {
			name = allOrNothingSegment
		}
		if bySeg[name] == nil {
			bySeg[name] = &source{input: codec.Input{Name: name}}
		}
		return bySeg[name]
	}
	matcher, err := ignore.New(o.Excludes)
	if err != nil {
		return nil, nil, err
	}
	for _, in := range o.Includes {
		entries, warns, err := collectInclude(in, matcher)
		if err != nil {
			return nil, nil, err
		}
		for _, w := range warns {
			warnings = append(warnings, "include "+in.Path+": "+w.String())
		}
		s := seg(in.segment())
		s.input.Entries = append(s.input.Entries, entries...)
		s.origin = append(s.origin, "include "+in.Path)
	}
	for _, d := range o.Dumps {
		e, err := o.runDump(ctx, d, tmp, dumps, key)
		if err != nil {
			return nil, nil, err
		}
		s := seg(d.Name)
		s.input.Entries = append(s.input.Entries, e)
		s.origin = append(s.origin, "dump "+d.Name)
	}
	out := make([]source, 0, len(bySeg))
	for _, s := range bySeg {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].input.Name < out[j].input.Name })
	return out, warnings, nil
}

// collectInclude returns the entries of one include, named under its base
// name: a directory tree (excludes applied) or a single file.
func collectInclude(in Include, m *ignore.Matcher) ([]bundle.Entry, []bundle.Warning, error) {
	info, err := os.Stat(in.Path)
	if err != nil {
		return nil, nil, fmt.Errorf("include %s: %w", in.Path, err)
	}
	if !info.IsDir() {
		e, err := bundle.FileEntry(in.top(), in.Path)
		return []bundle.Entry{e}, nil, err
	}
	entries, warns, err := bundle.Collect(in.Path, in.top(), bundle.CollectOptions{Exclude: m.Match})
	if err != nil {
		return nil, nil, fmt.Errorf("include %s: %w", in.Path, err)
	}
	return entries, warns, nil
}

// runDump runs a dump command with "sh -c" and keeps its standard output
// in a file under tmp. A non-zero exit, a signal or the timeout is an error
// that quotes the end of the command's standard error.
func (o *Options) runDump(ctx context.Context, d Dump, tmp string, dumps map[string]dumpInfo, key stateKey) (bundle.Entry, error) {
	ctx, cancel := context.WithTimeout(ctx, o.DumpTimeout)
	defer cancel()
	out, err := os.Create(filepath.Join(tmp, "dump-"+d.Name))
	if err != nil {
		return bundle.Entry{}, err
	}
	defer out.Close()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "sh", "-c", d.Command)
	cmd.Stdout, cmd.Stderr = out, &limitedBuffer{buf: &stderr, max: 4096}
	cmd.WaitDelay = 5e9
	err = cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("timed out after %v", o.DumpTimeout)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg != "" {
			msg = "; its stderr ends: " + lastLines(msg, 3)
		}
		return bundle.Entry{}, fmt.Errorf("%w: %s (%q): %v%s", ErrDump, d.Name, d.Command, err, msg)
	}
	if err := out.Close(); err != nil {
		return bundle.Entry{}, err
	}
	if err := stampDump(out.Name(), d.Name, dumps, o.Now(), key); err != nil {
		return bundle.Entry{}, err
	}
	return bundle.FileEntry(d.Name, out.Name())
}

// dumpInfo remembers a dump's output, as a keyed hash, and the mtime it
// was given.
type dumpInfo struct {
	MAC    []byte    `json:"mac"`              // keyed hash of the output (see stateKey)
	SHA256 []byte    `json:"sha256,omitempty"` // version 1 only: the plain SHA-256, migrated to MAC
	MTime  time.Time `json:"mtime"`
}

// stampDump gives a dump file mode 0600 and a stable mtime: the recorded
// one while the content is unchanged, else now.
func stampDump(path, name string, dumps map[string]dumpInfo, now time.Time, key stateKey) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	h := sha256.New()
	_, err = io.Copy(h, f)
	f.Close()
	if err != nil {
		return err
	}
	mac := key.sum(labelDump, h.Sum(nil))
	prev, ok := dumps[name]
	if !ok || !hmac.Equal(prev.MAC, mac) {
		prev = dumpInfo{MAC: mac, MTime: now.UTC().Truncate(time.Second)}
		dumps[name] = prev
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return err
	}
	return os.Chtimes(path, prev.MTime, prev.MTime)
}

// limitedBuffer keeps the last max bytes written to it.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.buf.Write(p)
	if over := l.buf.Len() - l.max; over > 0 {
		l.buf.Next(over)
	}
	return len(p), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
