// Package site finds the pages of a static site that can carry Lazarus
// blocks, and maintains the signals that make archives re-crawl them.
//
// Archives keep what their crawlers find: pages linked from the root, not
// too deep, without query strings, not excluded by robots.txt or robots
// meta tags, and they truncate large pages. Discover crawls a site
// directory the way such a crawler would and reports every reachable page
// with its depth, size and eligibility. UpdateSitemap and SetNotice give the
// pages that changed a new sitemap <lastmod> and a visible "updated" line:
// archives ignored comment-only changes for weeks, and re-cached pages
// within a week once a visible line changed (seed 004 §4.2).
//
// # Crawl
//
// The root page is index.html, else index.htm, of the site directory,
// served at Options.SiteURL. The crawl is breadth-first from it and follows
// the links of <a href>, <area href>, <iframe src> and <frame src>,
// resolved against the page URL or the first <base href>. Links inside
// <template>, and in what the x/net/html tokenizer reads as raw text
// (script, style, noscript, …), are not seen. rel="nofollow" on a link is
// ignored, as archive crawlers mostly ignore it. A link counts when, after
// resolution, it is an http or https URL of the site's host and port
// (http and https are the same site; default ports are dropped) under the
// site URL's path. Fragments are dropped; paths are compared in RFC 3986
// normal form (escapes of unreserved characters decoded, hex in upper case,
// dot segments removed, so "%2e%2e" cannot climb above the root).
//
// A link with a query string ("?" present, even empty) is never followed
// and is reported in Site.Skipped. Other links map to files as a static
// file server maps them: "/x/" to x/index.html or x/index.htm; "/x" to the
// file x if it is one, else x.html, else x/index.html or x/index.htm served
// at "/x/" (the server redirects there, so relative links resolve against
// "/x/"). Path segments are percent-decoded; a segment that decodes to
// "", ".", "..", or contains "/", "\" or NUL names no file. Files are opened
// through os.Root: symbolic links may be followed only while they stay
// inside the directory (and are relative). A file is a page if its name
// ends in .html, .htm or .xhtml (any case); links to other existing files
// are not pages and are dropped; links to no file go to Site.Skipped.
//
// A URL disallowed by robots.txt for any agent of Options.Agents is not
// fetched: its links are not followed, as that archive could not see them.
// Neither are the links of a page whose honoured robots meta tags (see
// below) say "nofollow" or "none", for any agent. <meta http-equiv=refresh>
// redirects are not followed. A page reached by several URLs is one Page;
// its URL is the shallowest URL that robots.txt allows, the others are its
// Aliases. HTML files of the directory that the crawl does not reach,
// including those reached only through disallowed or nofollow pages, are
// reported in Site.Unlinked.
//
// # Carriers
//
// A page is a carrier unless
//
//   - robots.txt (the directory's robots.txt, see Robots.Allowed) disallows
//     its URL for one of Options.Agents: blocks must reach every archive;
//   - a <meta name="robots"> tag, or one named after an agent of
//     Options.Agents ("ia_archiver", "CCBot", …, case-insensitive), says
//     "noindex", "noarchive", "nocache" (Bing's noarchive) or "none";
//   - its size after htmlblock.Strip exceeds Options.MaxPageBytes.
//
// Sizes and links are taken from the page without Lazarus comments, so the
// result does not change when blocks are injected (a page over 64 MiB is
// not stripped: its size is its file size). Depth is reported, not
// judged: deep pages are captured less often and the planner may prefer
// shallow ones. X-Robots-Tag headers are not visible in static files and
// are not considered. For a site below the host's root, the robots.txt that
// archives read is the host's, which Discover cannot see; it reads the one
// in the site directory, if any, against the URLs' full paths.
//
// # robots.txt
//
// ParseRobots follows RFC 9309 and Google's parser: groups start with
// user-agent lines, Allow and Disallow patterns match URL paths from their
// start, "*" matches any bytes and a final "$" anchors at the end, the
// longest matching pattern wins and Allow wins ties. A group applies to an
// agent if its product token is a case-insensitive substring of the
// agent's (the longest such tokens win; their groups combine); else the
// "*" groups apply.
//
// # Bounds
//
// robots.txt is read up to MaxRobotsBytes, lines up to 16,664 bytes. Pages
// are read up to 64 MiB. Links longer than 4,096 bytes are ignored. A crawl
// fails with ErrTooManyPages beyond Options.MaxPages page files, 8 ×
// MaxPages distinct linked URLs, or 16 × MaxPages directory entries.
// sitemap.xml is limited to MaxSitemapBytes.
package site
