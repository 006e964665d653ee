package verify

import (
	"net/url"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/site"
)

// TestRobotsFor: robots.txt is read per archive crawler, each agent by
// its own group or else "*".
func TestRobotsFor(t *testing.T) {
	const ia, cc = archiveSet(1), archiveSet(2)
	cases := []struct {
		robots, path string
		allowed      archiveSet
		disallowed   string
	}{
		{"", "/a", ia | cc, ""},
		{"User-agent: *\nDisallow: /\n", "/a", 0, "ia_archiver archive.org_bot CCBot"},
		{"User-agent: ia_archiver\nDisallow: /\n", "/a", cc, "ia_archiver"},
		{"User-agent: archive.org_bot\nDisallow: /a\n", "/a", cc, "archive.org_bot"},
		{"User-agent: ccbot\nDisallow: /a\n", "/b", ia | cc, ""},
		{"User-agent: *\nDisallow: /a\nUser-agent: CCBot\nAllow: /\n", "/a", cc, "ia_archiver archive.org_bot"},
	}
	for _, c := range cases {
		cr := &crawler{robots: site.ParseRobots([]byte(c.robots))}
		u, _ := url.Parse("http://h" + c.path)
		allowed, dis := cr.robotsFor(u)
		if allowed != c.allowed || strings.Join(dis, " ") != c.disallowed {
			t.Errorf("%q %s: allowed %b disallowed %q, want %b %q", c.robots, c.path, allowed, dis, c.allowed, c.disallowed)
		}
	}
}

// TestRobotsVerdict: a page is kept by the archives that reach it and
// may fetch it; the words say which and why.
func TestRobotsVerdict(t *testing.T) {
	const ia, cc = archiveSet(1), archiveSet(2)
	cases := []struct {
		from, allowed archiveSet
		disallowed    []string
		kept          archiveSet
		reason, note  string
	}{
		{ia | cc, ia | cc, nil, ia | cc, "", ""},
		{ia | cc, cc, []string{"ia_archiver"}, cc, "", "disallowed for ia_archiver; CCBot may fetch it"},
		{ia | cc, 0, []string{"ia_archiver", "archive.org_bot", "CCBot"}, 0, "robots.txt disallows it for ia_archiver, archive.org_bot, CCBot", ""},
		// Only the Internet Archive reaches it, and only Common Crawl may
		// fetch it: nobody keeps it.
		{ia, cc, []string{"ia_archiver"}, 0, "robots.txt disallows it for ia_archiver; CCBot may fetch it, but every link to it is on pages robots.txt disallows for them", ""},
		{cc, ia | cc, nil, cc, "", "reached only by CCBot: the links to it are on pages robots.txt disallows for the other crawlers"},
	}
	for _, c := range cases {
		kept, reason, note := robotsVerdict(c.from, c.allowed, c.disallowed)
		if kept != c.kept || reason != c.reason || note != c.note {
			t.Errorf("%b %b %q: got %b %q %q, want %b %q %q", c.from, c.allowed, c.disallowed, kept, reason, note, c.kept, c.reason, c.note)
		}
	}
}

// TestArchiveCrawlersAgents: the crawlers Verify plays are the archive
// agents inject and the site package heed (site.DefaultAgents less "*"),
// so that verify does not judge robots.txt for other agents than those
// inject placed blocks for.
func TestArchiveCrawlersAgents(t *testing.T) {
	var want []string
	for _, a := range site.DefaultAgents() {
		if a != "*" {
			want = append(want, a)
		}
	}
	if got := allArchives.agents(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("archive crawlers' agents %q, site.DefaultAgents %q", got, want)
	}
}
