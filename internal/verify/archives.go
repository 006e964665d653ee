package verify

import (
	"cmp"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// archiveCrawler is one archive's crawler, by the robots.txt user agents
// it heeds: a page is kept from that archive when robots.txt disallows it
// for any of them (a group for the agent applies, else the "*" group).
type archiveCrawler struct {
	name   string
	agents []string
}

// archiveCrawlers are the archives whose crawlers Verify plays. A page
// counts as kept when at least one of them may fetch it and reaches it by
// links through pages it may fetch: recovery combines the archives.
var archiveCrawlers = []archiveCrawler{
	{name: "Internet Archive", agents: []string{"ia_archiver", "archive.org_bot"}},
	{name: "Common Crawl", agents: []string{"CCBot"}},
}

// archiveSet is a set of archiveCrawlers, bit i for archiveCrawlers[i].
type archiveSet uint8

// allArchives is the set of every archive crawler.
var allArchives = archiveSet(1)<<len(archiveCrawlers) - 1

// has reports whether archive i is in s.
func (s archiveSet) has(i int) bool { return s&(1<<i) != 0 }

// agents lists the user agents of the archives in s.
func (s archiveSet) agents() []string {
	var out []string
	for i, a := range archiveCrawlers {
		if s.has(i) {
			out = append(out, a.agents...)
		}
	}
	return out
}

// robotsFor says which archives robots.txt lets fetch u, and the user
// agents it disallows u for.
func (cr *crawler) robotsFor(u *url.URL) (allowed archiveSet, disallowed []string) {
	p := u.EscapedPath()
	if u.RawQuery != "" || u.ForceQuery {
		p += "?" + u.RawQuery
	}
	for i, a := range archiveCrawlers {
		ok := true
		for _, agent := range a.agents {
			if !cr.robots.Allowed(agent, p) {
				ok = false
				disallowed = append(disallowed, agent)
			}
		}
		if ok {
			allowed |= 1 << i
		}
	}
	return allowed, disallowed
}

// robotsVerdict words what robots.txt does to a page that the archives in
// from reach by links, which robots.txt lets the archives in allowed
// fetch and disallows for the agents in disallowed. kept is from∩allowed:
// the archives that would keep it. When kept is empty, reason says why
// (it starts "robots.txt disallows it for" when some agent is named); when
// some archives keep it and others not, note says so ("disallowed for
// ia_archiver, archive.org_bot; CCBot may fetch it").
func robotsVerdict(from, allowed archiveSet, disallowed []string) (kept archiveSet, reason, note string) {
	kept = from & allowed
	list := strings.Join(disallowed, ", ")
	switch {
	case kept != 0 && len(disallowed) > 0:
		note = fmt.Sprintf("disallowed for %s; %s may fetch it", list, strings.Join(kept.agents(), ", "))
	case kept != 0 && from != allArchives:
		note = fmt.Sprintf("reached only by %s: the links to it are on pages robots.txt disallows for the other crawlers", strings.Join(kept.agents(), ", "))
	case kept != 0:
	case len(disallowed) == 0:
		reason = "robots.txt: reached only through pages it disallows for every archive crawler"
	case allowed == 0:
		reason = "robots.txt disallows it for " + list
	default:
		reason = fmt.Sprintf("robots.txt disallows it for %s; %s may fetch it, but every link to it is on pages robots.txt disallows for them",
			list, strings.Join(allowed.agents(), ", "))
	}
	return kept, reason, note
}

// maxReachExamples bounds ArchiveReach.Examples.
const maxReachExamples = 5

// archiveReach says per archive crawler what robots.txt lets it keep:
// the pages read (by pageKey) it would keep, carriers the counts excluded
// gives, and the pages kept from it but not from another archive. An
// archive that would keep no page, or no carrier while another would, is
// also a warning in the report.
func (t *tally) archiveReach(carriers []int) []ArchiveReach {
	out := make([]ArchiveReach, len(archiveCrawlers))
	keys := slices.Sorted(maps.Keys(t.visited))
	for i, a := range archiveCrawlers {
		r := &out[i]
		r.Archive, r.Agents, r.Examples = a.name, a.agents, []string{}
		if i < len(carriers) {
			r.Carriers = carriers[i]
		}
		for _, k := range keys {
			vi := t.visited[k]
			switch {
			case vi.archives.has(i):
				r.Pages++
			case vi.archives != 0:
				r.Disallowed++
				if len(r.Examples) < maxReachExamples {
					r.Examples = append(r.Examples, vi.url+": "+cmp.Or(vi.note, "kept from "+a.name))
				}
			}
		}
	}
	return out
}

// reachWarnings words what archiveReach found that the user must hear:
// an archive robots.txt keeps from every page, or from every carrier of
// the generation, holds none of the backup.
func reachWarnings(reach []ArchiveReach, carriers int) []string {
	var out []string
	for _, r := range reach {
		who := fmt.Sprintf("%s (%s)", r.Archive, strings.Join(r.Agents, ", "))
		switch {
		case r.Pages == 0:
			out = append(out, fmt.Sprintf("robots.txt keeps %s from every page: that archive would hold nothing of the site, only the other archives count", who))
		case r.Carriers == 0 && carriers > 0:
			out = append(out, fmt.Sprintf("robots.txt keeps %s from every page carrying the generation's blocks: that archive would hold none of the backup", who))
		}
	}
	return out
}
