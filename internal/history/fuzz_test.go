package history

import (
	"bytes"
	"context"
	"encoding/base32"
	"strings"
	"testing"
)

// FuzzParseRecords: whatever a history value holds, parsing never panics,
// every record it returns is valid, and marshalling a record and parsing
// it again gives the same record.
func FuzzParseRecords(f *testing.F) {
	good := record("page", "/about/", t0)
	line, _ := Marshal(&good)
	f.Add(line)
	f.Add(append(append(line, '\n'), line[:len(line)/2]...))
	f.Add([]byte(`{"v":1,"digest":"3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ","url":"/","time":"2026-11-24T12:00:00Z"}`))
	f.Add([]byte(`{"v":1,"digest":"3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ","url":"/","time":"2026-11-24T12:00:00Z","blocks":{"0123456789abcdef0123456789abcdef":[]}}`))
	f.Add([]byte("{\"v\":1}\r\n\n[]\nnull\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, skipped := ParseRecords(data)
		if skipped < 0 || len(recs)+skipped > bytes.Count(data, []byte("\n"))+1 {
			t.Fatalf("%d records and %d skipped from %d lines", len(recs), skipped, bytes.Count(data, []byte("\n"))+1)
		}
		for _, rec := range recs {
			if err := rec.Validate(); err != nil {
				t.Fatalf("parsed an invalid record: %v", err)
			}
			line, err := Marshal(&rec)
			if err != nil {
				t.Fatalf("marshal of a parsed record: %v", err)
			}
			again, ok := parseLine(line)
			if !ok || !equalRecords(again, rec) {
				t.Fatalf("round trip: %+v became %+v (%v)", rec, again, ok)
			}
		}
	})
}

// FuzzLoad: a store holding anything under the history's keys loads
// without panicking, and what it loads is valid.
func FuzzLoad(f *testing.F) {
	good := record("page", "/", t0)
	line, _ := Marshal(&good)
	f.Add(line, []byte("LZRM\x01"))
	f.Fuzz(func(t *testing.T, batch, man []byte) {
		st := newMemStore()
		st.m[BatchKey(gen1)] = batch
		st.m[RecordKey(&good)] = batch
		st.m[ManifestKey(gen2)] = man
		ix, err := Load(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		for d, rec := range ix.Records {
			if rec.Digest != d || rec.Validate() != nil {
				t.Fatalf("loaded %q as %+v", d, rec)
			}
		}
		for gen, env := range ix.Manifests {
			if checkManifest(gen, env) != nil {
				t.Fatalf("loaded a bad manifest for %s", gen)
			}
		}
	})
}

// FuzzParseDigest: whatever a listing's digest field holds, parsing never
// panics, and a parsed digest spelled again (its String, in lower case,
// its sum in base32 without a label) parses to the same value and checks
// bytes with its own algorithm.
func FuzzParseDigest(f *testing.F) {
	for _, s := range []string{emptySHA1, "sha1:" + emptySHA1, "sha256:" + emptySHA256Hex, "SHA-256:" + emptySHA256B32 + "====",
		emptySHA256Hex, emptySHA256B32, "-", "md5:x", "sha256:" + emptySHA256B32[:51] + "R", ":", "sha1:sha256:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := ParseDigest(s)
		if ok != !d.IsZero() || (d.Algorithm() != SHA1 && d.Algorithm() != SHA256) == ok {
			t.Fatalf("ParseDigest(%q) = %v, %v", s, d, ok)
		}
		if !ok {
			return
		}
		label, sum, _ := strings.Cut(d.String(), ":")
		if label != d.Algorithm().String() {
			t.Fatalf("%q spelled %s", s, d)
		}
		raw := d.sum[:d.alg.size()]
		for _, again := range []string{d.String(), strings.ToLower(d.String()), sum, base32.StdEncoding.EncodeToString(raw)} {
			if e, ok := ParseDigest(again); !ok || e != d {
				t.Fatalf("%q parsed to %v; spelled %q it parses to %v, %v", s, d, again, e, ok)
			}
		}
	})
}
