package site

import (
	"strings"
	"testing"
)

// robotsCase is one robots.txt and the verdicts it must give.
type robotsCase struct {
	name   string
	robots string
	checks []robotsCheck
}

type robotsCheck struct {
	agent, path string
	allowed     bool
}

func runRobotsCases(t *testing.T, cases []robotsCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := ParseRobots([]byte(c.robots))
			for _, k := range c.checks {
				if got := r.Allowed(k.agent, k.path); got != k.allowed {
					t.Errorf("Allowed(%q, %q) = %v, want %v", k.agent, k.path, got, k.allowed)
				}
			}
		})
	}
}

// rfcExample is the example of RFC 9309 §5.1.
const rfcExample = `User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot

EOF
`

// TestRobots_RFC9309 checks the examples of RFC 9309.
func TestRobots_RFC9309(t *testing.T) {
	runRobotsCases(t, []robotsCase{
		{"5.1 simple example", rfcExample, []robotsCheck{
			{"foobot", "/example/page.html", true},
			{"foobot", "/example/allowed.gif", true},
			{"foobot", "/other", false},
			{"FooBot", "/", false}, // agents match case-insensitively
			{"barbot", "/example/page.html", false},
			{"bazbot", "/example/page.html", false},
			{"barbot", "/example/other.gif", true}, // its own group, not "*"
			{"quxbot", "/example/page.gif", true},  // empty group: everything
			{"otherbot", "/image.gif", false},
			{"otherbot", "/a/b/image.gif", false},
			{"otherbot", "/image.gif?x", true}, // "$" anchors at the end
			{"otherbot", "/example/", false},
			{"otherbot", "/publications/", true},
			{"otherbot", "/robots.txt", true},
		}},
		{"5.2 longest match", "User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n", []robotsCheck{
			{"foobot", "/example/page/", true},
			{"foobot", "/example/page/disallowed.gif", false},
			{"foobot", "/example/page/other.gif", true},
		}},
		{"2.2.2 percent-encoding", "User-agent: *\nDisallow: /foo/bar/ツ\nDisallow: /baz/%62%61%7A\nDisallow: /q/bar?baz=https://foo.bar\n", []robotsCheck{
			{"a", "/foo/bar/%E3%83%84", false},
			{"a", "/foo/bar/%e3%83%84", false},
			{"a", "/foo/bar/ツ", false},
			{"a", "/baz/baz", false},
			{"a", "/baz/%62az", false},
			{"a", "/q/bar?baz=https://foo.bar", false},
			{"a", "/q/bar?baz=other", true},
		}},
		{"2.2.3 special characters", "User-agent: *\nDisallow: /path/file-with-a-%2A.html\nDisallow: /path/foo-%24\nDisallow: /path/*-wild.html\n", []robotsCheck{
			{"a", "/path/file-with-a-*.html", false},
			{"a", "/path/file-with-a-x.html", true}, // %2A is a literal "*"
			{"a", "/path/foo-$", false},
			{"a", "/path/foo-", true}, // %24 is a literal "$"
			{"a", "/path/any-wild.html", false},
			{"a", "/path/-wild.html", false},
			{"a", "/path/wild.html", true},
		}},
		{"2.2.1 groups combine", "User-agent: a\nDisallow: /x\n\nUser-agent: b\nDisallow: /y\n\nUser-agent: a\nDisallow: /z\n", []robotsCheck{
			{"a", "/x", false},
			{"a", "/z", false},
			{"a", "/y", true},
			{"b", "/y", false},
		}},
		{"no group matches", "User-agent: a\nDisallow: /\n", []robotsCheck{
			{"b", "/anything", true},
			{"*", "/anything", true},
		}},
	})
}

// TestRobots_Google checks the matching examples of Google's robots.txt
// documentation.
func TestRobots_Google(t *testing.T) {
	runRobotsCases(t, []robotsCase{
		{"/fish", "User-agent: *\nDisallow: /fish\n", []robotsCheck{
			{"a", "/fish", false}, {"a", "/fish.html", false}, {"a", "/fish/salmon.html", false},
			{"a", "/fishheads", false}, {"a", "/fishheads/yummy.html", false}, {"a", "/fish.php?id=anything", false},
			{"a", "/Fish.asp", true}, {"a", "/catfish", true}, {"a", "/?id=fish", true}, {"a", "/desert/fish", true},
		}},
		{"/fish*", "User-agent: *\nDisallow: /fish*\n", []robotsCheck{
			{"a", "/fish", false}, {"a", "/fishheads", false}, {"a", "/Fish.asp", true},
		}},
		{"/fish/", "User-agent: *\nDisallow: /fish/\n", []robotsCheck{
			{"a", "/fish/", false}, {"a", "/fish/?id=anything", false}, {"a", "/fish/salmon.htm", false},
			{"a", "/fish", true}, {"a", "/fish.html", true}, {"a", "/animals/fish/", true}, {"a", "/Fish/Salmon.asp", true},
		}},
		{"/*.php", "User-agent: *\nDisallow: /*.php\n", []robotsCheck{
			{"a", "/index.php", false}, {"a", "/filename.php", false}, {"a", "/folder/filename.php", false},
			{"a", "/folder/filename.php?parameters", false}, {"a", "/folder/any.php.file.html", false},
			{"a", "/filename.php/", false}, {"a", "/", true}, {"a", "/windows.PHP", true},
		}},
		{"/*.php$", "User-agent: *\nDisallow: /*.php$\n", []robotsCheck{
			{"a", "/filename.php", false}, {"a", "/folder/filename.php", false},
			{"a", "/filename.php?parameters", true}, {"a", "/filename.php/", true},
			{"a", "/filename.php5", true}, {"a", "/windows.PHP", true},
		}},
		{"/fish*.php", "User-agent: *\nDisallow: /fish*.php\n", []robotsCheck{
			{"a", "/fish.php", false}, {"a", "/fishheads/catfish.php?parameters", false}, {"a", "/Fish.PHP", true},
		}},
		{"allow /p disallow /", "User-agent: *\nAllow: /p\nDisallow: /\n", []robotsCheck{{"a", "/page", true}, {"a", "/x", false}}},
		{"equal length", "User-agent: *\nAllow: /folder\nDisallow: /folder\n", []robotsCheck{{"a", "/folder/page", true}}},
		{"equal length, disallow first", "User-agent: *\nDisallow: /folder\nAllow: /folder\n", []robotsCheck{{"a", "/folder/page", true}}},
		{"longer disallow", "User-agent: *\nAllow: /page\nDisallow: /*.htm\n", []robotsCheck{{"a", "/page.htm", false}}},
		{"tie with wildcard", "User-agent: *\nAllow: /page\nDisallow: /*.ph\n", []robotsCheck{{"a", "/page.php5", true}}},
		{"allow /$", "User-agent: *\nAllow: /$\nDisallow: /\n", []robotsCheck{{"a", "/", true}, {"a", "/page.htm", false}}},
	})
}

// TestRobots_Agents checks how groups are chosen for an agent.
func TestRobots_Agents(t *testing.T) {
	runRobotsCases(t, []robotsCase{
		{"specific beats global", "User-agent: *\nDisallow: /\n\nUser-agent: CCBot\nDisallow: /cc\n", []robotsCheck{
			{"CCBot", "/x", true}, {"CCBot", "/cc", false}, {"ccbot", "/cc", false}, {"ia_archiver", "/x", false},
		}},
		{"version stripped", "User-agent: CCBot/2.0\nDisallow: /\n", []robotsCheck{{"CCBot", "/", false}}},
		{"substring", "User-agent: archiver\nDisallow: /\n", []robotsCheck{
			{"ia_archiver", "/", false}, {"CCBot", "/", true},
		}},
		{"longest token wins", "User-agent: bot\nDisallow: /a\n\nUser-agent: archive.org_bot\nDisallow: /b\n", []robotsCheck{
			{"archive.org_bot", "/a", true}, {"archive.org_bot", "/b", false}, {"CCBot", "/a", false},
		}},
		{"star agent uses only star groups", "User-agent: *\nDisallow: /s\n\nUser-agent: a\nDisallow: /a\n", []robotsCheck{
			{"*", "/s", false}, {"*", "/a", true},
		}},
		{"star with junk", "User-agent: * # everyone\nDisallow: /j\n\nUser-agent: *junk\nDisallow: /k\n", []robotsCheck{
			{"a", "/j", false}, {"a", "/k", true},
		}},
		{"group with several agents", "User-agent: a\nUser-agent: *\nDisallow: /x\n", []robotsCheck{
			{"a", "/x", false}, {"z", "/x", false},
		}},
		{"empty specific group beats global", "User-agent: *\nDisallow: /\n\nUser-agent: a\nDisallow:\n", []robotsCheck{
			{"a", "/x", true}, {"b", "/x", false},
		}},
	})
}

// TestRobots_Tolerance checks parsing of malformed files.
func TestRobots_Tolerance(t *testing.T) {
	long := "User-agent: *\nDisallow: /" + strings.Repeat("a", maxRobotsLine) + "\n"
	big := "User-agent: *\n" + strings.Repeat("# padding\n", MaxRobotsBytes/10) + "Disallow: /late\n"
	runRobotsCases(t, []robotsCase{
		{"BOM and CRLF", "\xef\xbb\xbfUser-agent: *\r\nDisallow: /a\r\n\r\nDisallow: /b\r\n", []robotsCheck{
			{"x", "/a", false}, {"x", "/b", false}, {"x", "/c", true},
		}},
		{"CR only", "User-agent: *\rDisallow: /a\r", []robotsCheck{{"x", "/a", false}}},
		{"comments", "# head\nUser-agent: * # all\nDisallow: /a # not /b\n#Disallow: /c\n", []robotsCheck{
			{"x", "/a", false}, {"x", "/b", true}, {"x", "/c", true}, {"x", "/a%20", false},
		}},
		{"case and spaces", "  USER-AGENT :  *  \n  disallow   :   /a  \n", []robotsCheck{{"x", "/a", false}}},
		{"missing colon", "User-agent *\nDisallow /a\nDisallow /b /c\n", []robotsCheck{
			{"x", "/a", false}, {"x", "/b", true},
		}},
		{"typos", "useragent: *\ndisalow: /a\ndissallow: /b\nuser agent: q\n", []robotsCheck{
			{"x", "/a", false}, {"x", "/b", false},
		}},
		{"rules before any agent", "Disallow: /a\nUser-agent: *\nDisallow: /b\n", []robotsCheck{
			{"x", "/a", true}, {"x", "/b", false},
		}},
		{"junk lines", "User-agent: *\nblah blah blah\n<html>\nDisallow: /a\n\x00\xff\n", []robotsCheck{{"x", "/a", false}}},
		{"other lines end a group", "User-agent: a\nCrawl-delay: 5\nUser-agent: b\nDisallow: /\n", []robotsCheck{
			{"a", "/x", true}, {"b", "/x", false},
		}},
		{"sitemap line ends a group", "User-agent: a\nSitemap: https://example.org/s.xml\nUser-agent: b\nDisallow: /\n", []robotsCheck{
			{"a", "/x", true}, {"b", "/x", false},
		}},
		{"pattern without slash", "User-agent: *\nDisallow: a\nDisallow: *b\n", []robotsCheck{
			{"x", "/a", true}, {"x", "/b", false},
		}},
		{"empty disallow", "User-agent: *\nDisallow:\n", []robotsCheck{{"x", "/", true}}},
		{"dollar in the middle", "User-agent: *\nDisallow: /a$b\n", []robotsCheck{{"x", "/a$b", false}, {"x", "/ab", true}}},
		{"overlong line truncated", long, []robotsCheck{{"x", "/" + strings.Repeat("a", maxRobotsLine-len("Disallow: /")), false}}},
		{"beyond the size limit", big, []robotsCheck{{"x", "/late", true}}},
		{"empty file", "", []robotsCheck{{"x", "/", true}}},
	})
}

// TestRobots_Nil checks that a nil *Robots allows everything.
func TestRobots_Nil(t *testing.T) {
	var r *Robots
	if !r.Allowed("CCBot", "/x") {
		t.Error("nil Robots disallows")
	}
}

// TestRuleMatches checks the wildcard matcher on its edges.
func TestRuleMatches(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"/", "/", true},
		{"*", "/anything", true},
		{"$", "/", false},
		{"/$", "/", true},
		{"/a*b*c", "/abc", true},
		{"/a*b*c", "/acb", false},
		{"/a*b*c$", "/axbxc", true},
		{"/a*b*c$", "/axbxcd", false},
		{"/a*c$", "/acbc", true}, // the last piece is matched at the end
		{"/a**b", "/ab", true},
		{"/a*$", "/a", true},
		{"/a*aa$", "/aaa", true},
		{"/a*aa$", "/aa", false},
		{"/x/", "/x", false},
	}
	for _, tt := range tests {
		r, ok := newRule(false, tt.pattern)
		if !ok {
			t.Fatalf("newRule(%q) failed", tt.pattern)
		}
		if got := r.matches(robotsPath(tt.path)); got != tt.want {
			t.Errorf("%q matches %q = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}
