package warc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
)

// gzipMagic starts every gzip member (ID1, ID2, CM=deflate).
var gzipMagic = []byte{0x1f, 0x8b, 0x08}

// errMemberDamaged is returned once by gunzipStream when a gzip member is
// corrupt or cut short; the following Read continues with the next member.
var errMemberDamaged = errors.New("warc: damaged gzip member")

// countingReader counts the bytes read from r.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// member records where one gzip member lies, compressed (c) and
// decompressed (u). End offsets are -1 while the member is being read and
// cEnd is -2 for a damaged member.
type member struct {
	uStart, uEnd int64
	cStart, cEnd int64
}

// gunzipStream decompresses a sequence of gzip members as one stream,
// tracking each member's compressed and decompressed extent, and skipping
// forward to the next gzip magic after a damaged member or garbage.
type gunzipStream struct {
	raw     *bufio.Reader
	count   *countingReader
	zr      *gzip.Reader
	in      bool  // inside a member
	u       int64 // decompressed bytes produced
	members []member
	problem func(off int64, err error)
	err     error // sticky terminal error

	// seeker, if the input can seek, lets the stream rescan the bytes a
	// damaged member's decoder consumed, which may hide later members;
	// base is the input's initial position and budget bounds the bytes
	// rescanned in total.
	seeker io.Seeker
	base   int64
	budget int64

	// pf, if set, has members inflated ahead (see prefetch.go); spec is
	// the one being read, from its byte at specPos.
	pf      *prefetcher
	spec    *spec
	specPos int
}

// rescanBudget bounds the compressed bytes reread after damaged members.
const rescanBudget = 64 << 20

func newGunzipStream(raw *bufio.Reader, count *countingReader, problem func(int64, error)) *gunzipStream {
	g := &gunzipStream{raw: raw, count: count, problem: problem, budget: rescanBudget}
	if s, ok := count.r.(io.Seeker); ok {
		// The input was read from its current position minus what the
		// buffer and counter have taken.
		if pos, err := s.Seek(0, io.SeekCurrent); err == nil {
			g.seeker, g.base = s, pos-count.n
		}
	}
	return g
}

// rewind moves the input back to compressed offset c, if it can seek and
// the rescan budget allows.
func (g *gunzipStream) rewind(c int64) {
	back := g.cpos() - c
	if g.seeker == nil || back <= 0 || back > g.budget {
		return
	}
	if _, err := g.seeker.Seek(g.base+c, io.SeekStart); err != nil {
		g.seeker = nil
		return
	}
	g.budget -= back
	g.count.n = c
	g.raw.Reset(g.count)
}

// cpos is the compressed offset of the next unread input byte.
func (g *gunzipStream) cpos() int64 { return g.count.n - int64(g.raw.Buffered()) }

func (g *gunzipStream) Read(p []byte) (int, error) {
	for {
		if g.err != nil {
			return 0, g.err
		}
		if !g.in {
			if err := g.startMember(); err != nil {
				g.err = err
				return 0, err
			}
			continue
		}
		if g.spec != nil {
			n := copy(p, g.spec.data[g.specPos:])
			g.specPos += n
			g.u += int64(n)
			if g.specPos == len(g.spec.data) {
				g.endSpec()
			}
			if n > 0 {
				return n, nil
			}
			continue
		}
		n, err := g.zr.Read(p)
		g.u += int64(n)
		switch {
		case err == io.EOF:
			g.endMember(g.cpos())
			if n > 0 {
				return n, nil
			}
		case err != nil:
			g.problem(g.u, fmt.Errorf("warc: gzip member at offset %d: %w", g.last().cStart, err))
			g.endMember(-2)
			g.rewind(g.last().cStart + 1)
			return n, errMemberDamaged
		default:
			return n, nil
		}
	}
}

// startMember positions the input on the next gzip member and opens it.
func (g *gunzipStream) startMember() error {
	if g.pf != nil {
		c := g.cpos()
		if s, ok := g.pf.member(c); ok {
			g.addMember(c)
			g.in, g.spec, g.specPos = true, s, 0
			return nil
		}
	}
	for {
		if err := g.seekMagic(); err != nil {
			return err
		}
		c := g.cpos()
		var err error
		if g.zr == nil {
			g.zr, err = gzip.NewReader(g.raw)
		} else {
			err = g.zr.Reset(g.raw)
		}
		if err == nil {
			g.zr.Multistream(false)
			g.addMember(c)
			g.in = true
			return nil
		}
		g.problem(g.u, fmt.Errorf("warc: bad gzip header at offset %d: %w", c, err))
	}
}

// endSpec ends a member inflated ahead and moves the input past it.
func (g *gunzipStream) endSpec() {
	end := g.spec.end
	g.pf.put(g.spec.data)
	g.spec = nil
	g.endMember(end)
	if d := end - g.cpos(); d >= 0 && d <= int64(g.raw.Buffered()) {
		_, _ = g.raw.Discard(int(d))
		return
	}
	if _, err := g.seeker.Seek(g.base+end, io.SeekStart); err != nil {
		g.err = fmt.Errorf("warc: seeking input: %w", err)
		return
	}
	g.count.n = end
	g.raw.Reset(g.count)
}

// seekMagic skips input up to the next gzip magic, reporting skipped bytes.
func (g *gunzipStream) seekMagic() error {
	start := g.cpos()
	for {
		head, err := g.raw.Peek(len(gzipMagic))
		if bytes.Equal(head, gzipMagic) {
			break
		}
		if err != nil {
			g.reportSkipped(start, g.cpos()+int64(len(head)))
			return io.EOF
		}
		if _, err := g.raw.Discard(1); err != nil {
			return io.EOF
		}
		if _, err := g.raw.ReadSlice(gzipMagic[0]); err == nil {
			_ = g.raw.UnreadByte()
		}
	}
	g.reportSkipped(start, g.cpos())
	return nil
}

func (g *gunzipStream) reportSkipped(from, to int64) {
	if to > from {
		g.problem(g.u, fmt.Errorf("warc: skipped %d bytes of non-gzip data at offset %d", to-from, from))
	}
}

func (g *gunzipStream) addMember(c int64) {
	if n := len(g.members); n > 0 && g.members[n-1].uStart == g.u && g.members[n-1].uEnd == g.u {
		g.members = g.members[:n-1] // drop an empty member
	}
	if len(g.members) >= maxMembers {
		// Keep the oldest member, which may hold the current record's
		// start, and the recent ones, which the read-ahead may need.
		g.members = append(g.members[:1], g.members[len(g.members)-maxMembers/2:]...)
	}
	g.members = append(g.members, member{uStart: g.u, uEnd: -1, cStart: c, cEnd: -1})
}

// maxMembers bounds the member table; it exceeds the number of non-empty
// members the read-ahead buffer can span.
const maxMembers = 4 * MaxLineSize

func (g *gunzipStream) endMember(cEnd int64) {
	m := g.last()
	m.uEnd, m.cEnd = g.u, cEnd
	g.in = false
}

func (g *gunzipStream) last() *member { return &g.members[len(g.members)-1] }

// memberAt returns the non-empty member holding decompressed byte u.
func (g *gunzipStream) memberAt(u int64) (member, bool) {
	for i := len(g.members) - 1; i >= 0; i-- {
		m := g.members[i]
		if m.uStart <= u && (m.uEnd < 0 || u < m.uEnd) {
			return m, true
		}
	}
	return member{}, false
}

// trim forgets members that end at or before decompressed offset u,
// except the one holding byte keep.
func (g *gunzipStream) trim(u, keep int64) {
	out := g.members[:0]
	for _, m := range g.members {
		if m.uEnd < 0 || m.uEnd > u || (m.uStart <= keep && keep < m.uEnd) {
			out = append(out, m)
		}
	}
	g.members = out
}
