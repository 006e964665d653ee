package site

import (
	"slices"
	"testing"
)

// pageTargets returns the site-relative targets of page served at doc on
// the test site.
func pageTargets(t *testing.T, page, doc string) []string {
	t.Helper()
	r := mustSiteRoot(t, testSiteURL)
	s := scanPage([]byte(page), []string{"robots"})
	var out []string
	for _, tg := range r.targets(&s, mustURL(t, doc)) {
		out = append(out, tg.String())
	}
	return out
}

func TestTargets(t *testing.T) {
	tests := []struct {
		name, page, doc string
		want            []string
	}{
		{"relative", `<a href="b.html">`, "https://example.org/a/x.html", []string{"/a/b.html"}},
		{"parent", `<a href="../b.html">`, "https://example.org/a/x.html", []string{"/b.html"}},
		{"above the root", `<a href="../../../b.html">`, "https://example.org/a/x.html", []string{"/b.html"}},
		{"escaped dots", `<a href="%2e%2e/%2E%2E/etc/passwd">`, "https://example.org/a/", []string{"/etc/passwd"}},
		{"absolute", `<a href="/b/">`, "https://example.org/a/", []string{"/b/"}},
		{"other host", `<a href="https://other.example/">`, "https://example.org/", nil},
		{"same host http", `<a href="http://example.org/h.html">`, "https://example.org/", []string{"/h.html"}},
		{"protocol-relative", `<a href="//example.org/p.html">`, "https://example.org/", []string{"/p.html"}},
		{"fragment only", `<a href="#x">`, "https://example.org/a.html", nil},
		{"empty", `<a href="">`, "https://example.org/a.html", nil},
		{"fragment dropped", `<a href="b.html#x">`, "https://example.org/", []string{"/b.html"}},
		{"query", `<a href="?q=1">`, "https://example.org/a.html", []string{"/a.html?q=1"}},
		{"schemes", `<a href="mailto:x@example.org"><a href="javascript:go()"><a href="data:,x"><a href="tel:1">`,
			"https://example.org/", nil},
		{"duplicates", `<a href="b.html"><a href="./b.html"><a href="/b.html#2">`, "https://example.org/", []string{"/b.html"}},
		{"order kept", `<a href="z.html"><a href="a.html">`, "https://example.org/", []string{"/z.html", "/a.html"}},
		{"elements", `<area href="1.html"><iframe src="2.html"></iframe><frame src="3.html"><link href="4.html"><img src="5.html">`,
			"https://example.org/", []string{"/1.html", "/2.html", "/3.html"}},
		{"first attribute wins", `<a href="1.html" href="2.html">`, "https://example.org/", []string{"/1.html"}},
		{"base", `<head><base href="/b/"></head><a href="c.html">`, "https://example.org/a/", []string{"/b/c.html"}},
		{"base after link", `<a href="c.html"><base href="/b/">`, "https://example.org/a/", []string{"/b/c.html"}},
		{"first base", `<base href="/b/"><base href="/z/"><a href="c.html">`, "https://example.org/", []string{"/b/c.html"}},
		{"relative base", `<base href="sub/"><a href="c.html">`, "https://example.org/a/x.html", []string{"/a/sub/c.html"}},
		{"base elsewhere", `<base href="https://cdn.example/"><a href="c.html"><a href="https://example.org/d.html">`,
			"https://example.org/", []string{"/d.html"}},
		{"empty href with base", `<base href="/b/"><a href="">`, "https://example.org/", []string{"/b/"}},
		{"template", `<template><a href="t.html"></template><a href="u.html">`, "https://example.org/", []string{"/u.html"}},
		{"script", `<script>"<a href='s.html'>"</script><a href="u.html">`, "https://example.org/", []string{"/u.html"}},
		{"comment", `<!-- <a href="c.html"> --><a href="u.html">`, "https://example.org/", []string{"/u.html"}},
		{"entities", `<a href="a.html?x=1&amp;y=2">`, "https://example.org/", []string{"/a.html?x=1&y=2"}},
		{"whitespace", "<a href=\"  b\n.html \">", "https://example.org/", []string{"/b.html"}},
		{"backslashes", `<a href="\b\c.html">`, "https://example.org/", []string{"/b/c.html"}},
		{"upper case", `<A HREF="U.html">`, "https://example.org/", []string{"/U.html"}},
		{"unparsable", `<a href="http://[::1">`, "https://example.org/", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pageTargets(t, tt.page, tt.doc); !slices.Equal(got, tt.want) {
				t.Errorf("targets = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestScanPage_Robots(t *testing.T) {
	names := []string{"robots", "ccbot", "ia_archiver"}
	tests := []struct {
		name, page string
		want       robotsMeta
	}{
		{"none", `<meta name="description" content="noindex">`, robotsMeta{}},
		{"noindex", `<meta name="robots" content="noindex">`, robotsMeta{noindex: "robots"}},
		{"case and spaces", `<META NAME=" Robots " CONTENT="NoIndex , NOARCHIVE">`, robotsMeta{noindex: "robots", noarchive: "robots"}},
		{"space separated", `<meta name="robots" content="noindex nofollow">`, robotsMeta{noindex: "robots", nofollow: "robots"}},
		{"none directive", `<meta name="robots" content="none">`, robotsMeta{noindex: "robots", nofollow: "robots"}},
		{"nocache", `<meta name="robots" content="nocache">`, robotsMeta{noarchive: "robots"}},
		{"agent", `<meta name="CCBot" content="noarchive">`, robotsMeta{noarchive: "ccbot"}},
		{"other agent", `<meta name="googlebot" content="noindex, noarchive">`, robotsMeta{}},
		{"first name wins", `<meta name="ia_archiver" content="noindex"><meta name="robots" content="noindex">`,
			robotsMeta{noindex: "ia_archiver"}},
		{"index follow", `<meta name="robots" content="index, follow, max-snippet:-1">`, robotsMeta{}},
		{"in template", `<template><meta name="robots" content="noindex"></template>`, robotsMeta{}},
		{"in body", `<body><p><meta name="robots" content="noarchive">`, robotsMeta{noarchive: "robots"}},
	}
	for _, tt := range tests {
		if got := scanPage([]byte(tt.page), names).robots; got != tt.want {
			t.Errorf("%s: robots %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
