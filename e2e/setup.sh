#!/usr/bin/env bash
# setup.sh prepares the real material the end-to-end tests in this directory use:
# the tools (wget, httrack, sqlite3, chromium, minify, redis-server) and three Debian packages unpacked,
# not installed, into a cache directory, and xcaddy (pinned, from the Go module proxy) in
# its bin/ directory. Run it as root; it is idempotent.
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
		apt_update
		log "apt-get install -y ${missing[*]}"
		apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
		for pkg in "${missing[@]}"; do
			log "tool $pkg: installed ($(command -v "$pkg"))"
		done
		if [[ " ${missing[*]} " == *" redis-server "* ]]; then
			stop_redis_service
		fi
	fi
}

# stop_redis_service stops and disables the system Redis that installing
# redis-server starts where there is an init system: the tests run
# redis-server themselves, on free ports, and depend on no daemon.
stop_redis_service() {
	if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet redis-server 2>/dev/null; then
		systemctl disable --now redis-server >/dev/null 2>&1 || true
		log "redis-server: system service stopped and disabled (the tests start their own)"
	elif command -v service >/dev/null 2>&1 && service redis-server status >/dev/null 2>&1; then
		service redis-server stop >/dev/null 2>&1 || true
		log "redis-server: system service stopped (the tests start their own)"
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
unpack debian-reference debian-reference-en debian-reference-common
unpack wordpress wordpress
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
