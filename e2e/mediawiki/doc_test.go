// Package mediawiki is the end-to-end test of a live MediaWiki wiki on
// PHP-FPM and MariaDB behind Caddy with the lazarus module: protected,
// crawled by wget, destroyed, recovered and brought back up
// (docs/RECOVER.md). `bash e2e/setup.sh` installs what it needs; without
// it the test skips and says so.
package mediawiki
