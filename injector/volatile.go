package injector

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"regexp"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// maxVolatileLine is the longest line of a dump's output that volatile
// patterns are matched against; a longer line (a multi-row INSERT of
// mysqldump's default output, say) is kept whole in the comparison, so
// memory stays bounded whatever the dump writes.
const maxVolatileLine = 16 << 20

// volatile is the compiled form of Dump.Volatile.
type volatile []*regexp.Regexp

// compileVolatile compiles a dump's volatile line patterns (Go regular
// expressions, RE2 syntax).
func compileVolatile(patterns []string) (volatile, error) {
	var out volatile
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("volatile pattern %q: %w", p, err)
		}
		out = append(out, re)
	}
	return out, nil
}

// matches reports whether line (without its newline) is volatile.
func (v volatile) matches(line []byte) bool {
	for _, re := range v {
		if re.Match(line) {
			return true
		}
	}
	return false
}

// substance returns the SHA-256 of r's lines that no pattern matches,
// each with its line ending as read: what the output preserves in
// substance. The output itself is never changed; this is for comparing
// two outputs only. Lines longer than maxVolatileLine are kept. It is an
// error when r has lines and every one is volatile: no change to such an
// output would ever count.
func (v volatile) substance(r io.Reader) ([sha256.Size]byte, error) {
	h := &countingHash{Hash: sha256.New()}
	lines := false
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if len(line) > maxVolatileLine { // too long to match: kept, streamed on
				h.Write(line)
				line = line[:0:0]
				if err := streamLine(br, h); err != nil {
					return [sha256.Size]byte{}, err
				}
			}
			continue
		case err != nil && err != io.EOF:
			return [sha256.Size]byte{}, err
		}
		lines = lines || len(line) > 0
		if len(line) > maxVolatileLine || len(line) > 0 && !v.matches(trimEOL(line)) {
			h.Write(line)
		}
		line = line[:0]
		if err == io.EOF {
			if lines && h.n == 0 {
				return [sha256.Size]byte{}, errEveryLineVolatile
			}
			return [sha256.Size]byte(h.Sum(nil)), nil
		}
	}
}

// errEveryLineVolatile is substance's error for an output whose every
// line a pattern matches.
var errEveryLineVolatile = errors.New("every line of its output matches a volatile pattern, so no change to it would ever count: name only the lines that change with nothing changed")

// countingHash is a hash that counts the bytes written to it.
type countingHash struct {
	hash.Hash
	n int64
}

func (c *countingHash) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.Hash.Write(p)
}

// streamLine copies the rest of the current line, its newline included,
// from br into w.
func streamLine(br *bufio.Reader, w io.Writer) error {
	for {
		chunk, err := br.ReadSlice('\n')
		w.Write(chunk)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			return nil
		}
		return err
	}
}

// trimEOL drops a line's "\n" or "\r\n".
func trimEOL(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
	}
	return line
}

// segmentSubstance returns the keyed hash of a segment's listing entries
// with the contents of its volatile dumps (entry name → the keyed hash of
// the output without its volatile lines) standing for their bytes and
// sizes: equal for two runs whose segments differ in volatile lines only.
// It is zero for a segment without volatile dumps.
func (k stateKey) segmentSubstance(files []manifest.File, volatileDumps map[string][]byte) manifest.Digest {
	var out manifest.Digest
	if len(volatileDumps) == 0 {
		return out
	}
	type entry struct {
		manifest.File
		Substance []byte `json:"substance,omitempty"`
	}
	list := make([]entry, len(files))
	for i, f := range files {
		list[i].File = f
		if s, ok := volatileDumps[f.Path]; ok {
			list[i].Size, list[i].SHA256, list[i].Substance = 0, nil, s
		}
	}
	raw, _ := json.Marshal(list) // plain data: cannot fail
	sum := sha256.Sum256(raw)
	copy(out[:], k.sum(labelSubstance, sum[:]))
	return out
}
