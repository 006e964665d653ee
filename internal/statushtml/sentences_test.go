package statushtml

import (
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"golang.org/x/net/html"
)

// TestSentencesWhole: the project's own sentences are shown whole, in
// the headline and in the generation's table, however long (the new
// user's page cut "(it wou…estore the segments …"); only the long words
// an attacker controls inside them (a segment name, a URL) are
// shortened, and more than maxShortShown reasons end "and N more".
func TestSentencesWhole(t *testing.T) {
	long := "its manifest is in no archived capture: even with every segment's blocks, recover could not make it " +
		"a coherent restore point (it would restore the segments without the generation's listing check, a partial restore)"
	hostile := strings.Repeat("x", 500)
	r := sampleReport()
	g := &r.Generations[0]
	r.Newest, g.Recoverable = g.ID, false
	r.RestorePoint = nil
	g.Short = []string{long, `segment "` + hostile + `" is 2 blocks short (stripe 0 has 1 of 3)`, "segments rebuildable, but its manifest is in no archived capture: recovery restores the segments, without the generation's listing check, as a partial restore", "d", "e", "f"}
	_, doc := render(t, r)
	gen := find(doc, func(n *html.Node) bool { v, _ := attr(n, "data-generation"); return n.Data == "table" && v == g.ID })
	if len(gen) != 1 {
		t.Fatalf("%d tables of generation %s", len(gen), g.ID)
	}
	for part, n := range map[string]*html.Node{"headline": byID(t, doc, "verdict"), "table": gen[0].PrevSibling.PrevSibling} {
		all := strings.Join(strings.Fields(text(n)), " ")
		if !strings.Contains(all, long) || !strings.Contains(all, "segments rebuildable, but its manifest is in no archived capture: recovery restores the segments, without the generation's listing check, as a partial restore") {
			t.Errorf("%s: a sentence is cut: %q", part, all)
		}
		if strings.Contains(all, hostile) || !strings.Contains(all, `segment "xxxx`) || !strings.Contains(all, `xxx" is 2 blocks short (stripe 0 has 1 of 3)`) || !strings.Contains(all, "…") {
			t.Errorf("%s: the 500-rune name is not shortened inside its sentence: %q", part, all)
		}
	}
	if all := text(doc); !strings.Contains(all, "and 2 more") {
		t.Errorf("the reasons past the %d shown are not counted: %q", maxShortShown, all)
	}
}

// TestShortenWords: words up to maxWordShown runes are kept, longer ones
// cut around an ellipsis to maxWordShown runes; the spaces stay.
func TestShortenWords(t *testing.T) {
	word := strings.Repeat("a", maxWordShown)
	long := "https://example.org/" + strings.Repeat("p", 300)
	got := shortenWords("see " + word + " and " + long + " now")
	parts := strings.Split(got, " ")
	if len(parts) != 5 || parts[0] != "see" || parts[1] != word || parts[2] != "and" || parts[4] != "now" {
		t.Fatalf("shortenWords changed the sentence: %q", got)
	}
	if n := len([]rune(parts[3])); n != maxWordShown || !strings.HasPrefix(parts[3], "https://example.org/") || !strings.Contains(parts[3], "…") {
		t.Errorf("the long URL became %q (%d runes)", parts[3], n)
	}
	if got := shortenWords("bad \xff word"); got != "bad \uFFFD word" {
		t.Errorf("invalid UTF-8: %q", got)
	}
}

// TestWrongKeyWording: the wrong key's headline is one sentence, the
// Cause's own (not "… data, but found …, but none …"), and the section
// of block charts says blocks were found but none verified, not that
// none were found.
func TestWrongKeyWording(t *testing.T) {
	msg := "found 17 Lazarus blocks or manifests, but none signed by this key: another site's data, or the wrong key"
	r := &status.Report{Now: sampleNow,
		Sources:  []status.SourceReport{{Name: "wayback", Captures: 9, Fetched: 9}},
		Captures: []status.Capture{{Source: "wayback", URL: "https://example.org/", Rejected: 17}},
		Cause:    &status.Cause{Kind: status.CauseWrongKey, Message: msg}}
	_, doc := render(t, r)
	head := strings.Join(strings.Fields(text(byID(t, doc, "verdict"))), " ")
	if want := "Found 17 Lazarus blocks or manifests, but none signed by this key: another site's data, or the wrong key (see Problems)."; !strings.Contains(head, want) {
		t.Errorf("headline %q, want %q", head, want)
	}
	if n := strings.Count(head, " but "); n != 1 {
		t.Errorf("headline says \"but\" %d times: %q", n, head)
	}
	nb := text(byID(t, doc, "no-blocks"))
	if !strings.Contains(nb, "none verified with this key") || strings.Contains(nb, "No blocks") {
		t.Errorf("the block section says %q", nb)
	}
	r.Cause = &status.Cause{Kind: status.CauseSourcesFailed, Message: "source wayback: cannot be read: listing: 503"}
	_, doc = render(t, r)
	if nb := text(byID(t, doc, "no-blocks")); !strings.Contains(nb, "Nothing could be read") {
		t.Errorf("sources failed: the block section says %q", nb)
	}
	if head := text(byID(t, doc, "verdict")); !strings.Contains(head, "Source wayback: cannot be read: listing: 503. This says nothing") {
		t.Errorf("sources failed: headline %q", head)
	}
	r.Cause = nil
	_, doc = render(t, r)
	if nb := text(byID(t, doc, "no-blocks")); nb != "No blocks of any generation were found in the archives." {
		t.Errorf("no cause: the block section says %q", nb)
	}
}
