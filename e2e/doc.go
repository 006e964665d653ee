// Package e2e holds end-to-end tests that run Lazarus against real
// material nobody on the project wrote: the Debian Reference manual as the
// site, WordPress (as Debian packages it, absolute symlinks included) and
// a dump made by sqlite3 as the server side, crawled by wget and httrack,
// served by Caddy and rendered by Chromium; pg_dump of a PostgreSQL
// server the test starts on a private socket runs docs/INJECT.md's
// recipe for dumps with volatile rows. Package e2e/wordpress (its
// own package, so that its minutes count apart under go test's timeout)
// runs a live WordPress site on PHP-FPM and MariaDB, started by the test
// on private sockets, protected, crawled, destroyed, recovered and
// brought back up; e2e/mediawiki does the same with a MediaWiki wiki;
// e2e/internal/e2etest holds what they share.
//
// The material comes from Debian's packages; `bash e2e/setup.sh` installs
// the tools and unpacks the packages into a cache directory
// ($LAZARUS_E2E_CACHE, defaults to /var/cache/lazarus-e2e). Without it the
// tests skip and say so.
package e2e
