package erasure

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenCases pin CodeRS8 and the striping layout for the next twenty
// years. Never change an existing file: add a new case instead.
var goldenCases = []struct {
	name string
	p    Params
}{
	{"k4_m2_s16", Params{K: 4, M: 2, ShardSize: 16, Length: 123}},     // 2 stripes, 5 bytes of padding
	{"k10_m5_s7", Params{K: 10, M: 5, ShardSize: 7, Length: 150}},     // 3 stripes, last one 10 bytes
	{"k1_m3_s8", Params{K: 1, M: 3, ShardSize: 8, Length: 20}},        // replication, 3 stripes
	{"k200_m56_s3", Params{K: 200, M: 56, ShardSize: 3, Length: 593}}, // 256 shards, 7 bytes of padding
	{"k3_m2_s4_empty", Params{K: 3, M: 2, ShardSize: 4, Length: 0}},   // one stripe of padding
}

// goldenInput returns the first n bytes of the stream
// SHA-256("lazarus erasure golden" || uint32be(0)) || SHA-256(… || uint32be(1)) || …,
// which any language can reproduce.
func goldenInput(n int64) []byte {
	var out []byte
	for i := uint32(0); int64(len(out)) < n; i++ {
		msg := binary.BigEndian.AppendUint32([]byte("lazarus erasure golden"), i)
		sum := sha256.Sum256(msg)
		out = append(out, sum[:]...)
	}
	return out[:n]
}

// goldenText renders every shard of p's encoding of goldenInput.
func goldenText(t *testing.T, p Params) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# CodeRS8 golden vector (internal/erasure/golden_test.go). Input: the first\n")
	fmt.Fprintf(&b, "# length bytes of SHA-256(\"lazarus erasure golden\" || uint32be(i)), i = 0, 1, ...\n")
	fmt.Fprintf(&b, "k %d\nm %d\nshard %d\nlength %d\n", p.K, p.M, p.ShardSize, p.Length)
	for i, shards := range encodeAll(t, p, goldenInput(p.Length)) {
		for j, s := range shards {
			kind := "data"
			if j >= p.K {
				kind = "parity"
			}
			fmt.Fprintf(&b, "stripe %d shard %d %s %x\n", i, j, kind, s)
		}
	}
	return b.Bytes()
}

func goldenPath(name string) string {
	return filepath.Join("testdata", "golden", name+".txt")
}

// TestGolden checks the encoder's output against the checked-in vectors.
// Run with -update to rewrite them (only ever for a new case).
func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			got := goldenText(t, tc.p)
			path := goldenPath(tc.name)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("encoding of %v differs from %s: the code changed", tc.p, path)
			}
		})
	}
}

// parseGolden reads a golden file without using the encoder.
func parseGolden(t *testing.T, path string) (Params, [][][]byte) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var p Params
	var stripes [][][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		var i, j int
		var kind, hx string
		switch {
		case strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "stripe "):
			if _, err := fmt.Sscanf(line, "stripe %d shard %d %s %s", &i, &j, &kind, &hx); err != nil {
				t.Fatalf("%s: %q: %v", path, line, err)
			}
			if i == len(stripes) {
				stripes = append(stripes, nil)
			}
			s, err := hex.DecodeString(hx)
			if err != nil || i != len(stripes)-1 || j != len(stripes[i]) {
				t.Fatalf("%s: bad line %q", path, line)
			}
			stripes[i] = append(stripes[i], s)
		default:
			parseGoldenParam(t, line, &p)
		}
	}
	return p, stripes
}

func parseGoldenParam(t *testing.T, line string, p *Params) {
	var key string
	var v int64
	if _, err := fmt.Sscanf(line, "%s %d", &key, &v); err != nil {
		t.Fatalf("bad line %q: %v", line, err)
	}
	switch key {
	case "k":
		p.K = int(v)
	case "m":
		p.M = int(v)
	case "shard":
		p.ShardSize = int(v)
	case "length":
		p.Length = v
	default:
		t.Fatalf("unknown key in %q", line)
	}
}

// TestGoldenDecode rebuilds each golden input from the files alone after
// erasing m shards per stripe, and checks the files' parity against the
// from-scratch reference encoder.
func TestGoldenDecode(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			p, stripes := parseGolden(t, goldenPath(tc.name))
			if p != tc.p || len(stripes) != p.Stripes() {
				t.Fatalf("file holds %v with %d stripes, want %v", p, len(stripes), tc.p)
			}
			for i, shards := range stripes {
				var want [][]byte
				if !raceEnabled || p.Shards() <= 32 { // the reference is slow under -race
					want = refEncode(p.K, p.M, shards[:p.K])
				}
				for j := range want {
					if !bytes.Equal(shards[p.K+j], want[j]) {
						t.Fatalf("stripe %d parity %d differs from the reference construction", i, j)
					}
				}
				for j := range p.M { // erase the first m shards, data first
					shards[(i+j)%p.Shards()] = nil
				}
			}
			got, err := decodeAll(p, stripes)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, goldenInput(p.Length)) {
				t.Errorf("rebuilt segment differs from the golden input")
			}
		})
	}
}
