#!/usr/bin/env bash
# setup.sh prepares the real material the end-to-end tests in this directory use:
# the tools (wget, httrack, sqlite3, chromium, minify) and three Debian packages unpacked,
# not installed, into a cache directory. Run it as root; it is idempotent.
#
#   LAZARUS_E2E_CACHE  the cache directory; defaults to /var/cache/lazarus-e2e
set -euo pipefail

CACHE="${LAZARUS_E2E_CACHE:-/var/cache/lazarus-e2e}"
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
	for pair in wget:wget httrack:httrack sqlite3:sqlite3 chromium:chromium minify:minify; do
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

mkdir -p "$CACHE"
install_tools
unpack debian-reference debian-reference-en debian-reference-common
unpack wordpress wordpress
log "cache ready in $CACHE"
