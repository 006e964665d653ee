#!/usr/bin/env bash
# setup.sh prepares the real material the end-to-end tests in this directory use:
# the tools (wget, httrack, sqlite3, chromium, minify, redis-server), what WordPress runs on
# (php-fpm with its MySQL and GD extensions, mariadb-server, and the libraries Debian's
# WordPress links to), the PHP extensions MediaWiki needs (intl, mbstring, xml),
# PostgreSQL (the server the pg_dump recipe's test starts), Debian packages unpacked, not
# installed, into a cache directory (WordPress and its Twenty Twenty-Three theme, and
# MediaWiki, among them: installing the wordpress or mediawiki package would pull in
# Apache), and xcaddy (pinned, from the Go module proxy) in its bin/ directory.
# The services it installs are stopped: the tests start their own, on private sockets.
# Run it as root; it is idempotent.
#
#   LAZARUS_E2E_CACHE  the cache directory; defaults to /var/cache/lazarus-e2e
set -euo pipefail

CACHE="${LAZARUS_E2E_CACHE:-/var/cache/lazarus-e2e}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# XCADDY_VERSION is the xcaddy e2e/xcaddy_test.go builds Caddy with.
XCADDY_VERSION=v0.4.5
export DEBIAN_FRONTEND=noninteractive

log() { printf 'e2e/setup.sh: %s\n' "$*"; }

updated=0
apt_update() {
	if [ "$updated" = 0 ]; then
		log "apt-get update"
		apt-get update -qq || log "apt-get update failed; using the package lists already there"
		updated=1
	fi
}

# apt_install installs the named packages, without what they only
# recommend.
apt_install() {
	apt_update
	log "apt-get install -y $*"
	apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# install_tools installs each tool whose command is missing.
install_tools() {
	local missing=() pair cmd pkg
	for pair in wget:wget httrack:httrack sqlite3:sqlite3 chromium:chromium minify:minify redis-server:redis-server; do
		cmd="${pair%%:*}" pkg="${pair#*:}"
		if command -v "$cmd" >/dev/null 2>&1; then
			log "tool $cmd: present ($(command -v "$cmd"))"
		else
			missing+=("$pkg")
		fi
	done
	if [ "${#missing[@]}" -gt 0 ]; then
		apt_install "${missing[@]}"
		for pkg in "${missing[@]}"; do
			log "tool $pkg: installed ($(command -v "$pkg"))"
		done
		if [[ " ${missing[*]} " == *" redis-server "* ]]; then
			stop_service redis-server
		fi
	fi
}

# install_wordpress_deps installs what the WordPress test runs on (PHP-FPM,
# MariaDB) and what Debian's wordpress package depends on to run (PHP's
# MySQL and GD extensions, getID3, the JavaScript libraries its symbolic
# links point into), without the package itself; and stops the services
# installing them started. Only then: an init script's stop may end every
# process of its program, a running test's included.
install_wordpress_deps() {
	local pkgs=(php-fpm php-mysql php-gd php-getid3 libjs-underscore libjs-cropper mariadb-server mariadb-client) missing=() pkg fpm
	for pkg in "${pkgs[@]}"; do
		if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
			missing+=("$pkg")
		fi
	done
	if [ "${#missing[@]}" -gt 0 ]; then
		apt_install "${missing[@]}"
		stop_service mariadb
		for fpm in /etc/init.d/php*-fpm; do
			[ -e "$fpm" ] && stop_service "$(basename "$fpm")"
		done
	else
		log "WordPress's dependencies: present"
	fi
}

# install_mediawiki_deps installs the PHP extensions Debian's mediawiki
# package depends on to run (intl, mbstring, xml; json is built into PHP
# 8, mysql comes with WordPress's), without the package itself, which
# would pull in Apache; and restarts nothing (the tests start their own
# PHP-FPM, which loads the extensions installed when it starts).
install_mediawiki_deps() {
	local pkgs=(php-intl php-mbstring php-xml) missing=() pkg fpm
	for pkg in "${pkgs[@]}"; do
		if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
			missing+=("$pkg")
		fi
	done
	if [ "${#missing[@]}" -gt 0 ]; then
		apt_install "${missing[@]}"
		for fpm in /etc/init.d/php*-fpm; do
			[ -e "$fpm" ] && stop_service "$(basename "$fpm")"
		done
	else
		log "MediaWiki's dependencies: present"
	fi
}

# install_postgresql installs the PostgreSQL server and client Debian
# ships (15 on bookworm) for the pg_dump recipe's test, and stops the
# cluster installing it started: the test runs initdb and postgres itself.
install_postgresql() {
	local pkgs=(postgresql postgresql-client) missing=() pkg
	for pkg in "${pkgs[@]}"; do
		if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
			missing+=("$pkg")
		fi
	done
	if [ "${#missing[@]}" -gt 0 ]; then
		apt_install "${missing[@]}"
		stop_service postgresql
	else
		log "PostgreSQL: present ($(echo /usr/lib/postgresql/*/bin))"
	fi
}

# stop_service stops and disables a system service that installing a
# package may have started (where there is an init system): the tests
# start their own (redis-server, mariadbd, php-fpm, postgres) on free ports and
# private sockets, and depend on no daemon.
stop_service() {
	if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$1" 2>/dev/null; then
		systemctl disable --now "$1" >/dev/null 2>&1 || true
		log "$1: system service stopped and disabled (the tests start their own)"
	elif command -v service >/dev/null 2>&1 && service "$1" status >/dev/null 2>&1; then
		service "$1" stop >/dev/null 2>&1 || true
		log "$1: system service stopped (the tests start their own)"
	fi
}

# unpack downloads the named packages and extracts them into $CACHE/$1,
# unless a stamp file says that was already done.
unpack() {
	local dest="$CACHE/$1" stamp="$CACHE/$1.done" tmp deb
	shift
	if [ -f "$stamp" ]; then
		log "$dest: present ($(du -sh "$dest" | cut -f1)), skipped"
		return
	fi
	apt_update
	tmp="$(mktemp -d)"
	(cd "$tmp" && apt-get download -qq "$@")
	rm -rf "$dest"
	mkdir -p "$dest"
	for deb in "$tmp"/*.deb; do
		log "downloaded $(basename "$deb") ($(du -h "$deb" | cut -f1))"
		dpkg-deb -x "$deb" "$dest"
	done
	rm -rf "$tmp"
	printf '%s\n' "$@" >"$stamp"
	log "$dest: extracted ($(du -sh "$dest" | cut -f1))"
}

# install_xcaddy installs xcaddy into $CACHE/bin, where the test looks,
# unless that version is there already.
install_xcaddy() {
	local bin="$CACHE/bin/xcaddy"
	if [ -x "$bin" ] && "$bin" version 2>/dev/null | grep -q "^$XCADDY_VERSION "; then
		log "xcaddy $XCADDY_VERSION: present ($bin), skipped"
		return
	fi
	log "go install github.com/caddyserver/xcaddy/cmd/xcaddy@$XCADDY_VERSION"
	GOBIN="$CACHE/bin" go install "github.com/caddyserver/xcaddy/cmd/xcaddy@$XCADDY_VERSION"
	log "xcaddy $XCADDY_VERSION: installed ($bin)"
}

# warm_xcaddy_build compiles what `xcaddy build --with` this module compiles,
# with the flags xcaddy $XCADDY_VERSION uses by default, into Go's build cache:
# a cold build of Caddy takes minutes, which belong here rather than in the test.
warm_xcaddy_build() {
	log "compiling Caddy with the module as xcaddy does, to warm Go's build cache"
	(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -ldflags "-w -s" -tags nobadger,nomysql,nopgx -o /dev/null ./cmd/caddy)
}

mkdir -p "$CACHE"
install_tools
install_wordpress_deps
install_postgresql
unpack debian-reference debian-reference-en debian-reference-common
unpack wordpress wordpress
unpack wordpress-theme wordpress-theme-twentytwentythree
install_mediawiki_deps
unpack mediawiki mediawiki mediawiki-classes
# The Valgrind manual (the page-weight case): installed with
# valgrind on most machines here; unpacked into the cache otherwise.
if [ ! -f /usr/share/doc/valgrind/html/index.html ]; then
	unpack valgrind valgrind
fi
if command -v go >/dev/null 2>&1; then
	install_xcaddy
	warm_xcaddy_build
else
	log "go is not in PATH: xcaddy not installed"
fi
log "cache ready in $CACHE"
