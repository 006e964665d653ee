package archive

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseTimeMapIA(t *testing.T) {
	base := "http://web.archive.org/web/timemap/link/http://example.org:80/"
	tm, err := ParseTimeMap(mustRead(t, "timemap_ia.link"), base)
	if err != nil {
		t.Fatal(err)
	}
	if tm.Original != "http://example.org:80/" || tm.TimeGate != "http://web.archive.org" || tm.Self != base || len(tm.Pages) != 0 {
		t.Errorf("links: %+v", tm)
	}
	// 30 Feb 2010 is impossible: dropped and counted.
	if tm.Dropped != 1 || len(tm.Mementos) != 3 {
		t.Fatalf("dropped %d, mementos %d; want 1, 3", tm.Dropped, len(tm.Mementos))
	}
	want := []struct {
		replay string
		time   time.Time
	}{
		{"http://web.archive.org/web/20020120142510id_/http://example.org:80/", time.Date(2002, 1, 20, 14, 25, 10, 0, time.UTC)},
		{"http://web.archive.org/web/20060311082146id_/http://www.example.org/", time.Date(2006, 3, 11, 8, 21, 46, 0, time.UTC)},
		{"http://web.archive.org/web/20230704101112id_/http://example.org/", time.Date(2023, 7, 4, 10, 11, 12, 0, time.UTC)},
	}
	for i, w := range want {
		m := tm.Mementos[i]
		if m.Replay != w.replay || !m.Time.Equal(w.time) || m.Source != "memento" || m.URL != tm.Original {
			t.Errorf("memento %d: %+v, want %v at %v", i, m, w.replay, w.time)
		}
	}
}

func TestParseTimeMapPaged(t *testing.T) {
	tm, err := ParseTimeMap(mustRead(t, "timemap_paged.link"), "https://arquivo.pt/wayback/timemap/link/1/https://example.org/")
	if err != nil {
		t.Fatal(err)
	}
	if len(tm.Pages) != 1 || tm.Pages[0] != "https://arquivo.pt/wayback/timemap/link/2/https://example.org/" {
		t.Errorf("pages %q", tm.Pages)
	}
	wantReplay := []string{
		"https://arquivo.pt/wayback/20150101000000id_/https://example.org/",
		"https://archive.ph/20150601120000/https://example.org/", // archive.today has no id_ replay
		"https://example.net/memento/abc",                        // not Wayback-style: unchanged
	}
	if len(tm.Mementos) != len(wantReplay) {
		t.Fatalf("got %d mementos: %+v", len(tm.Mementos), tm.Mementos)
	}
	for i, w := range wantReplay {
		if tm.Mementos[i].Replay != w {
			t.Errorf("memento %d replay %q, want %q", i, tm.Mementos[i].Replay, w)
		}
	}
}

func TestParseTimeMapCases(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		mementos int
		dropped  int
		wantErr  bool
	}{
		// Empty documents hold nothing.
		{"empty", "", 0, 0, false},
		{"only separators", " ,\r\n, ", 0, 0, false},
		// Relation types are case-insensitive and may be a list.
		{"rel list", `<http://a/web/20200101000000/http://x/>; REL="First Memento Last"; datetime="Wed, 01 Jan 2020 00:00:00 GMT"`, 1, 0, false},
		// Unquoted tokens and line breaks between any tokens.
		{"token values", "<http://a/m>\n;\nrel=memento\n;datetime=\"Wed, 01 Jan 2020 00:00:00 GMT\"", 1, 0, false},
		// Escaped quotes inside a quoted string do not end it.
		{"escaped quote", `<http://a/m>; title="x\";rel=\"memento"; rel="memento"; datetime="Wed, 01 Jan 2020 00:00:00 GMT"`, 1, 0, false},
		// Datetimes that are missing, unparsable or implausible drop the entry.
		{"no datetime", `<http://a/m>; rel="memento"`, 0, 1, false},
		{"bad datetime", `<http://a/m>; rel="memento"; datetime="yesterday"`, 0, 1, false},
		{"future datetime", `<http://a/m>; rel="memento"; datetime="Tue, 01 Jan 2999 00:00:00 GMT"`, 0, 1, false},
		{"pre-web datetime", `<http://a/m>; rel="memento"; datetime="Mon, 01 Jan 1990 00:00:00 GMT"`, 0, 1, false},
		// Structural damage is an error.
		{"unterminated uri", `<http://a/m; rel="memento"`, 0, 0, true},
		{"unterminated quote", `<http://a/m>; rel="memento`, 0, 0, true},
		{"garbage", `hello world`, 0, 0, true},
		{"missing semicolon", `<http://a/m> rel="memento"`, 0, 0, true},
		{"empty param", `<http://a/m>; ; rel="memento"`, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tm, err := ParseTimeMap([]byte(tt.in), "")
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				if !errors.Is(err, ErrMalformed) {
					t.Errorf("error %v does not wrap ErrMalformed", err)
				}
				return
			}
			if len(tm.Mementos) != tt.mementos || tm.Dropped != tt.dropped {
				t.Errorf("mementos %d dropped %d; want %d, %d", len(tm.Mementos), tm.Dropped, tt.mementos, tt.dropped)
			}
		})
	}
}

func TestRawMementoURL(t *testing.T) {
	tests := []struct{ in, raw, orig string }{
		{"http://web.archive.org/web/20200101000000/http://x.org/a?b=c", "http://web.archive.org/web/20200101000000id_/http://x.org/a?b=c", "http://x.org/a?b=c"},
		{"http://web.archive.org/web/20200101000000im_/http://x.org/", "http://web.archive.org/web/20200101000000id_/http://x.org/", "http://x.org/"},
		{"http://web.archive.org/web/20200101000000id_/http://x.org/", "http://web.archive.org/web/20200101000000id_/http://x.org/", "http://x.org/"},
		{"https://webarchive.nationalarchives.gov.uk/ukgwa/20200101000000/https://x.gov.uk/", "https://webarchive.nationalarchives.gov.uk/ukgwa/20200101000000id_/https://x.gov.uk/", "https://x.gov.uk/"},
		{"https://archive.is/20200101000000/http://x.org/", "https://archive.is/20200101000000/http://x.org/", "http://x.org/"},
		{"https://perma.cc/ABCD-1234", "https://perma.cc/ABCD-1234", ""},
		{"http://a/web/2020/notaurl", "http://a/web/2020/notaurl", ""},
	}
	for _, tt := range tests {
		raw, orig := RawMementoURL(tt.in)
		if raw != tt.raw || orig != tt.orig {
			t.Errorf("RawMementoURL(%q) = %q, %q; want %q, %q", tt.in, raw, orig, tt.raw, tt.orig)
		}
	}
}

func FuzzParseTimeMap(f *testing.F) {
	f.Add(mustRead(f, "timemap_ia.link"))
	f.Add(mustRead(f, "timemap_paged.link"))
	f.Add([]byte(`<a>;rel="memento timemap";datetime="Wed, 01 Jan 2020 00:00:00 GMT";x="\"`))
	now := time.Now()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		tm, err := ParseTimeMap(data, "http://base.example/tm/")
		if err != nil {
			return
		}
		// Each memento consumed at least "<>" plus a datetime parameter.
		if n := len(tm.Mementos) + tm.Dropped; n > strings.Count(string(data), "<") {
			t.Fatalf("%d memento entries from %d '<'", n, strings.Count(string(data), "<"))
		}
		for _, m := range tm.Mementos {
			if !plausible(m.Time, now) {
				t.Fatalf("implausible memento %+v", m)
			}
		}
	})
}
