package injector

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/bundle"
	"github.com/lazarus-preserve/lazarus/internal/rootfile"
)

// dumpWaitDelay is how long a dump's output pipes may stay open after the
// command ended or was killed (a process that left the dump's process
// group may hold them).
const dumpWaitDelay = 5 * time.Second

// runDump runs a dump command with "sh -c" and keeps its standard output
// in a file under tmp. A non-zero exit, a signal or the timeout is an error
// that quotes the end of the command's standard error; a done ctx returns
// its cause. Whatever the outcome, nothing the command started is left
// running (see dumpCommand).
func (o *Options) runDump(ctx context.Context, d Dump, tmp string, dumps map[string]dumpInfo, key stateKey) (bundle.Entry, error) {
	if err := ctx.Err(); err != nil {
		return bundle.Entry{}, interrupted(ctx)
	}
	dctx, cancel := context.WithTimeout(ctx, o.DumpTimeout)
	defer cancel()
	out, err := os.Create(filepath.Join(tmp, "dump-"+d.Name))
	if err != nil {
		return bundle.Entry{}, err
	}
	defer out.Close()
	var stderr bytes.Buffer
	cmd := dumpCommand(dctx, d.Command)
	cmd.Stdout, cmd.Stderr = out, &limitedBuffer{buf: &stderr, max: 4096}
	err = cmd.Run()
	if cmd.Process != nil {
		killGroup(cmd.Process.Pid) // background jobs the shell left behind
	}
	switch {
	case ctx.Err() != nil:
		return bundle.Entry{}, interrupted(ctx)
	case dctx.Err() == context.DeadlineExceeded:
		err = dumpTimeout(o.DumpTimeout)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg != "" {
			msg = "; its stderr ends: " + lastLines(msg, 3)
		}
		return bundle.Entry{}, fmt.Errorf("%w: %s (%q): %w%s", ErrDump, d.Name, d.Command, err, msg)
	}
	vol, err := compileVolatile(d.Volatile)
	if err != nil { // checked by validate: not reached
		return bundle.Entry{}, err
	}
	if err := stampDump(out, d.Name, vol, dumps, o.Now(), key); err != nil {
		return bundle.Entry{}, fmt.Errorf("dump %s: %w", d.Name, err)
	}
	if err := out.Close(); err != nil {
		return bundle.Entry{}, err
	}
	e, err := bundle.FileEntry(d.Name, out.Name())
	e.Uname, e.Gname = "", "" // a scratch file's owner: the run's, nothing the dump says
	return e, err
}

// dumpTimeout is the error of a dump that outlived DumpTimeout;
// errors.Is finds context.DeadlineExceeded in it.
type dumpTimeout time.Duration

func (d dumpTimeout) Error() string { return fmt.Sprintf("timed out after %v", time.Duration(d)) }

// Is reports whether target is context.DeadlineExceeded.
func (d dumpTimeout) Is(target error) bool { return target == context.DeadlineExceeded }

// dumpCommand returns "sh -c command" in a process group of its own. When
// ctx is done the whole group is killed, so pipelines and background jobs
// the command started die with it instead of living on, reparented to
// init. A terminal's Ctrl-C does not reach the group (it is not the
// foreground group): the run's context does it.
func dumpCommand(ctx context.Context, command string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	cmd.WaitDelay = dumpWaitDelay
	return cmd
}

// killGroup sends SIGKILL to every process of the process group pgid;
// os.ErrProcessDone if none is left.
func killGroup(pgid int) error {
	err := syscall.Kill(-pgid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// dumpInfo remembers a dump's output, as keyed hashes, and the mtime it
// was given.
type dumpInfo struct {
	MAC    []byte `json:"mac"`              // keyed hash of the output (see stateKey)
	SHA256 []byte `json:"sha256,omitempty"` // version 1 only: the plain SHA-256, migrated to MAC
	// Substance is the keyed hash of the output without its volatile
	// lines (Dump.Volatile), for a dump that has some.
	Substance []byte    `json:"substance,omitempty"`
	MTime     time.Time `json:"mtime"`
}

// same reports whether d records the output that mac and substance
// describe: the same substance where the dump has volatile lines, else
// the same bytes.
func (d dumpInfo) same(mac, substance []byte) bool {
	if substance != nil {
		return hmac.Equal(d.Substance, substance)
	}
	return d.Substance == nil && hmac.Equal(d.MAC, mac)
}

// stampDump gives a dump's output file mode 0600 and a stable mtime: the
// recorded one while the content is unchanged (in substance, where vol
// names volatile lines), else now. Both are set on the open file, never
// by name.
func stampDump(f *os.File, name string, vol volatile, dumps map[string]dumpInfo, now time.Time, key stateKey) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	h := sha256.New()
	var substance []byte
	if len(vol) > 0 {
		sum, err := vol.substance(io.TeeReader(f, h))
		if err != nil {
			return err
		}
		substance = key.sum(labelSubstance, sum[:])
	} else if _, err := io.Copy(h, f); err != nil {
		return err
	}
	mac := key.sum(labelDump, h.Sum(nil))
	prev, ok := dumps[name]
	if !ok || !prev.same(mac, substance) {
		prev.MTime = now.UTC().Truncate(time.Second)
	}
	prev.MAC, prev.Substance = mac, substance
	dumps[name] = prev
	if err := f.Chmod(0o600); err != nil {
		return err
	}
	return rootfile.SetTimes(f, prev.MTime, prev.MTime)
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
