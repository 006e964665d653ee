package archive

import (
	"fmt"
	"strings"
	"testing"
)

func cdxFixture(rows int) []byte {
	var b strings.Builder
	b.WriteString(`[["urlkey","timestamp","original","mimetype","statuscode","digest","length"]`)
	for i := range rows {
		fmt.Fprintf(&b, ",\n[\"org,example)/p%d\", \"2015%02d%02d120000\", \"http://example.org/p%d\", \"text/html\", \"200\", \"HHFEQ4JQ2ZHQOIVDYHVMAL3NUJIRKHP4\", \"%d\"]",
			i, i%12+1, i%28+1, i, 1000+i)
	}
	b.WriteString(",\n[],\n[\"org%2Cexample%29%2Fp9+20150101120000\"]]\n")
	return []byte(b.String())
}

func BenchmarkParseCDXJSON_10000rows(b *testing.B) {
	data := cdxFixture(10000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if caps, _, err := ParseCDXJSON(data, "https://web.archive.org"); err != nil || len(caps) != 10000 {
			b.Fatal(len(caps), err)
		}
	}
}

func BenchmarkParseTimeMap_10000mementos(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("<http://example.org/>; rel=\"original\",\n")
	for i := range 10000 {
		fmt.Fprintf(&sb, "<http://web.archive.org/web/2015%02d%02d120000/http://example.org/>; rel=\"memento\"; datetime=\"%s\",\n",
			i%12+1, i%28+1, "Thu, 01 Jan 2015 12:00:00 GMT")
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if tm, err := ParseTimeMap(data, ""); err != nil || len(tm.Mementos) != 10000 {
			b.Fatal(err)
		}
	}
}
