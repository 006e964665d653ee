// Package ondemand is on-request capture: asking a web archive to capture
// a page now, instead of waiting weeks for its crawlers. It holds the one
// interface, Requester, that the capture-and-confirm loop (package
// capture) drives, and the outcome of one request, Result. Each archive
// that offers on-request capture through a usable API has an
// implementation of its own; today that is the Internet Archive's Save
// Page Now 2 (package spn), with the site's keys or without.
//
// Which archives capture on request, and why only one is implemented
// (looked up in November 2026; docs/ASSURANCE.md keeps the list for
// users):
//
//   - Internet Archive, Save Page Now 2 (SPN2). Documented JSON API
//     ("SPN2 Public API Docs Draft", Vangelis Banos, updated 2022-04-05,
//     https://docs.google.com/document/d/1Nsv52MvSjbLb2PCpHlat0gkzw0EvtSgpKHu4mk0MnrA):
//     POST https://web.archive.org/save with "Authorization: LOW
//     access:secret" (keys from https://archive.org/account/s3.php), then
//     GET /save/status/{job_id}. Its changelog (2023-01-22) says "Anonymous
//     users can do 4 captures per minute and authenticated users can do 12
//     captures per minute". Without keys, tools used GET
//     https://web.archive.org/save/{url} and read the capture from the
//     answer's Content-Location or Link header (palewire/savepagenow,
//     oduwsdl/archivenow's ia_handler). Reports from 2025–2026 say the
//     archive has since closed that door to programs: unauthenticated POST
//     /save answers 401 "You need to be logged in to use Save Page Now",
//     GET /save/{url} 429 or 404 (measured 2026-08-27 in
//     https://github.com/MKRWW/wortlaut/issues/108; also
//     https://github.com/MikkoParkkola/mcp-gateway/pull/240, 2026-06-08, and
//     https://github.com/brewsterkahle/onionpress/issues/101, 2026-03-11: API
//     access without a login needs whitelisting), and the
//     logged-out daily limit was 200 captures
//     (https://github.com/overcast07/wayback-machine-spn-scripts/pull/44,
//     2025-04-01). So requests without keys are tried politely (4 a
//     minute, one at a time) and, on the first refusal, given up and
//     remembered (spn.ErrKeysRequired): the one line the CLI prints says
//     how to get keys and what they buy.
//   - archive.today (archive.ph, archive.is). No API: the submission form
//     is guarded against robots (CAPTCHAs); archivenow drives it with a
//     headless Firefox through Selenium (is_handler), which is neither an
//     API nor polite. Not implemented.
//   - Perma.cc (Harvard LIL). Documented API (POST
//     https://api.perma.cc/v1/archives/ with an API key; archivenow's
//     cc_handler), but only with a paid account or an institution's
//     registrar account (individual plans of 10 links a month), and its
//     replay is client-side (Webrecorder), so recover could read its
//     captures only through the WARC download endpoint, a source Lazarus
//     does not have. Not implemented; its TimeMaps
//     (https://perma.cc/timemap/link/{url}, public links only, after 24 h,
//     https://github.com/harvard-lil/perma/issues/2682) can be read as a Memento source.
//   - Arquivo.pt. "ArchivePageNow" records a page through a pywb
//     recording proxy (https://arquivo.pt/save/now/record/{url}), a web
//     service for people, not a documented API; recordings reach the
//     playback "in a few hours"
//     (https://github.com/arquivo/pwa-technologies/issues/1556, 2026-07)
//     and its APIs ban addresses that exceed their limits permanently
//     (github.com/arquivo/pwa-technologies/wiki/APIs). Not implemented.
//   - Megalodon.jp: a web form that refuses robots (archivenow's
//     mg_handler drives it with Selenium). WebCite stopped taking
//     requests (archivenow's README, January 2021). Archive-It and the
//     national libraries crawl for their partners or by nomination
//     forms, not on request. Not implemented.
//
// Common Crawl takes no requests at all: it finds pages through links and
// sitemaps, which inject can announce in robots.txt (injector.Options.Sitemap).
package ondemand
