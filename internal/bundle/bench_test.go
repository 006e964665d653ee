package bundle

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// vocabulary for synthetic site text: markup, code and SQL tokens.
var vocabulary = strings.Fields(`<div class="content"> </div> <p> </p> <a href="/index.php?page=
"> <?php echo $title; ?> function return array( ); foreach ($items as $item) { } if else
INSERT INTO wp_posts VALUES ( 'publish', NULL, 0, 1, '2019-04-01 12:00:00', ), the of and to
in is for on with as by this that from at or be are was it an have not you all can more
about your our news contact home page post comment search archive category tag author
<li> </li> <ul> </ul> <span> </span> <img src="/images/ alt=" width=" height=" />
.jpg .png style="color: #333; margin: 0 auto; padding: 1em;" var let const => null true
false document.getElementById('main'); window.addEventListener('load', () => {});`)

// siteText returns n bytes of compressible synthetic text.
func siteText(r *rand.Rand, n int) []byte {
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(vocabulary[r.IntN(len(vocabulary))])
		if r.IntN(12) == 0 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.Bytes()[:n]
}

// mixedTree returns about total bytes of entries: half text files, half
// random (incompressible, like images) files, of sizes from 1 KiB to 2 MiB.
func mixedTree(total int) []Entry {
	r := rand.New(rand.NewPCG(42, 7))
	var entries []Entry
	for i, sum := 0, 0; sum < total; i++ {
		size := min(1<<(10+r.IntN(12)), total-sum)
		var data []byte
		if i%2 == 0 {
			data = siteText(r, size)
		} else {
			data = randomBytes(uint64(i), size)
		}
		entries = append(entries, memFile(fmt.Sprintf("site/d%02d/f%04d", i%17, i), data, 0o644))
		sum += size
	}
	return entries
}

var (
	bench64Once    sync.Once
	bench64Entries []Entry
)

func bench64() []Entry {
	bench64Once.Do(func() { bench64Entries = mixedTree(64 << 20) })
	return bench64Entries
}

// BenchmarkWrite_64MiB packs 64 MiB of mixed text and random data at
// several gzip levels (level 3 is DefaultLevel); "ratio" is input bytes
// per payload byte.
func BenchmarkWrite_64MiB(b *testing.B) {
	entries := bench64()
	for _, level := range []int{1, 2, 3, 4, 5, 6, 9} {
		b.Run(fmt.Sprintf("level=%d", level), func(b *testing.B) {
			b.SetBytes(64 << 20)
			b.ReportAllocs()
			var st Stats
			for b.Loop() {
				var err error
				if st, err = Write(io.Discard, entries, WriteOptions{Level: level}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(st.Bytes)/float64(st.PayloadSize), "ratio")
		})
	}
}

// BenchmarkExtract_64MiB extracts a 64 MiB payload (default level) to disk.
func BenchmarkExtract_64MiB(b *testing.B) {
	var buf bytes.Buffer
	if _, err := Write(&buf, bench64(), WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	parent := b.TempDir()
	b.SetBytes(64 << 20)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		dir := filepath.Join(parent, fmt.Sprint(i))
		i++
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if _, err := Extract(bytes.NewReader(buf.Bytes()), dir, ExtractOptions{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		os.RemoveAll(dir)
		b.StartTimer()
	}
}

// siteTree returns a tree shaped like a PHP application's: files of 100
// bytes to 64 KiB (most of a few KiB) of site text, spread over
// directories nested three deep, about total bytes in all.
func siteTree(total int) []Entry {
	r := rand.New(rand.NewPCG(26, 1))
	var entries []Entry
	for i, sum := 0, 0; sum < total; i++ {
		size := min(100<<r.IntN(10), total-sum)
		name := fmt.Sprintf("site/m%02d/s%02d/f%05d.php", i%9, i%23, i)
		entries = append(entries, memFile(name, siteText(r, size), 0o644))
		sum += size
	}
	slices.SortFunc(entries, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return entries
}

// BenchmarkExtract_Files extracts a payload of 2,538 small files (25
// MiB, 217 directories) with 8 to 1 writers; "files/s" is the rate of
// files restored. On a disk file system most of the cost is the file
// system's (an inode per file); TMPDIR=/dev/shm shows the rest.
func BenchmarkExtract_Files(b *testing.B) {
	entries := siteTree(25 << 20)
	var buf bytes.Buffer
	if _, err := Write(&buf, entries, WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{8, 4, 2, 1} {
		b.Run(fmt.Sprintf("writers=%d", n), func(b *testing.B) {
			parent := b.TempDir()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				dir := filepath.Join(parent, fmt.Sprint(i))
				i++
				if err := os.Mkdir(dir, 0o755); err != nil {
					b.Fatal(err)
				}
				if _, err := Extract(bytes.NewReader(buf.Bytes()), dir, ExtractOptions{Writers: n}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(entries))*float64(b.N)/b.Elapsed().Seconds(), "files/s")
		})
	}
}
