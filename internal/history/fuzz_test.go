package history

import (
	"bytes"
	"context"
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
