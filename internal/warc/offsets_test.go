package warc

import (
	"bytes"
	"io"
	"testing"
)

func TestOffsetsReadAt(t *testing.T) {
	for _, gzipEach := range []bool{true, false} {
		data := writeSample(t, gzipEach, []int{10, 5000, 70000, 0, 300})
		recs, _ := readAll(t, data)
		end := int64(0)
		for i, g := range recs {
			// Records tile the file exactly, each readable on its own.
			if g.rec.Offset != end || g.rec.Length <= 0 {
				t.Fatalf("gzip %v record %d: range %d+%d, want offset %d", gzipEach, i, g.rec.Offset, g.rec.Length, end)
			}
			end += g.rec.Length
			rec, err := ReadAt(bytes.NewReader(data), g.rec.Offset, g.rec.Length)
			if err != nil {
				t.Fatalf("gzip %v record %d: ReadAt: %v", gzipEach, i, err)
			}
			body, err := io.ReadAll(rec.Body)
			if err != nil || !bytes.Equal(body, g.body) || rec.TargetURI != g.rec.TargetURI {
				t.Errorf("gzip %v record %d: ReadAt body differs (err %v)", gzipEach, i, err)
			}
		}
		if end != int64(len(data)) {
			t.Errorf("gzip %v: records cover %d of %d bytes", gzipEach, end, len(data))
		}
	}
}

func TestOffsetsSingleMember(t *testing.T) {
	// Records sharing one gzip member cannot be fetched by byte range:
	// only the first has an offset and none has a length.
	data := gzipAll(writeSample(t, false, []int{10, 20}))
	recs, _ := readAll(t, data)
	for i, g := range recs {
		wantOff := int64(-1)
		if i == 0 {
			wantOff = 0
		}
		if g.rec.Offset != wantOff || g.rec.Length != -1 {
			t.Errorf("record %d: range %d+%d, want %d+-1", i, g.rec.Offset, g.rec.Length, wantOff)
		}
	}
}

func TestReadAtErrors(t *testing.T) {
	data := writeSample(t, true, []int{100})
	tests := []struct {
		name        string
		off, length int64
	}{
		{"negative offset", -1, 10}, // rejected
		{"zero length", 0, 0},       // rejected
		{"past end", int64(len(data)), 10},
		{"inside member", 5, 100}, // no gzip magic: no record
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ReadAt(bytes.NewReader(data), tt.off, tt.length); err == nil {
				t.Error("ReadAt succeeded")
			}
		})
	}
}

func TestTruncatedMember(t *testing.T) {
	// A Common Crawl range cut short: the record comes back with the bytes
	// that could be decompressed and ErrTruncated.
	data := writeSample(t, true, []int{50000})
	recs, _ := readAll(t, data)
	last := recs[len(recs)-1].rec
	rec, err := ReadAt(bytes.NewReader(data), last.Offset, last.Length/2)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(rec.Body)
	if !isTruncated(err) || len(body) == 0 || !bytes.HasPrefix(recs[len(recs)-1].body, body) {
		t.Errorf("got %d bytes, err %v; want a prefix and ErrTruncated", len(body), err)
	}
}

func TestManyEmptyMembers(t *testing.T) {
	// Empty gzip members between records do not grow memory or break
	// offsets: the record after them starts at its own member.
	n := 100000
	if raceEnabled || testing.Short() {
		n = 2000
	}
	var data bytes.Buffer
	data.Write(writeSample(t, true, []int{10}))
	empty := gzipAll(nil)
	for i := 0; i < n; i++ {
		data.Write(empty)
	}
	start := int64(data.Len())
	data.Write(writeSample(t, true, nil))
	recs, rd := readAll(t, data.Bytes())
	if len(recs) != 3 || recs[2].rec.Offset != start || recs[2].rec.Length <= 0 {
		t.Fatalf("got %d records, last at %d+%d, want 3 with the last at %d", len(recs), recs[len(recs)-1].rec.Offset, recs[len(recs)-1].rec.Length, start)
	}
	if len(rd.gz.members) > 4 {
		t.Errorf("member table holds %d entries", len(rd.gz.members))
	}
}

func TestDamagedMembers(t *testing.T) {
	data := writeSample(t, true, []int{1000, 1000, 1000})
	recs, _ := readAll(t, data)
	second := recs[2].rec
	tests := []struct {
		name   string
		damage func([]byte) []byte
		want   int // records still read
	}{
		// A flipped byte inside the second page's member: that record is
		// cut (ErrTruncated) or lost, the others survive.
		{"corrupt member", func(b []byte) []byte {
			b[second.Offset+second.Length/2] ^= 0xff
			return b
		}, 3},
		// Garbage between members is skipped to the next gzip magic.
		{"garbage between", func(b []byte) []byte {
			out := append([]byte(nil), b[:second.Offset]...)
			out = append(out, "\x00\x00garbage\x1f"...)
			return append(out, b[second.Offset:]...)
		}, 4},
		// Zero padding after the last member is ignored.
		{"trailing zeros", func(b []byte) []byte { return append(b, make([]byte, 100)...) }, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rd := readAll(t, tt.damage(bytes.Clone(data)))
			if len(got) < tt.want || len(rd.Problems()) == 0 {
				t.Fatalf("got %d records, problems %v; want ≥ %d records and some problems", len(got), rd.Problems(), tt.want)
			}
			last := got[len(got)-1]
			if !bytes.Equal(last.body, recs[3].body) {
				t.Error("last record not recovered intact")
			}
		})
	}
}
