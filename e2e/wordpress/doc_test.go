// Package wordpress is the end-to-end test of a live WordPress site on
// PHP-FPM and MariaDB behind Caddy with the lazarus module: protected,
// idle with visitors (no new generation), crawled by wget, destroyed,
// recovered and brought back up (docs/RECOVER.md). `bash e2e/setup.sh`
// installs what it needs; without it the test skips and says so.
package wordpress
