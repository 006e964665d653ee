#!/usr/bin/env bash
# Measures `lazarus recover --source dir=SITE` on a mirror directory of a
# site of $PAGES pages (20,001 by default: root → 20 sections → pages, as
# bench/inject.sh builds its site, smaller pages) into which
# `lazarus inject` packed Debian's WordPress tree (unpacked by
# e2e/setup.sh, run here if missing) with its default plan. Interleaved,
# best of ROUNDS (3) wall times, with user and system CPU and peak RSS; a
# fresh output directory each run, all removed at the end; the restored
# tree is compared with the source. STRACE=1 also counts the system calls
# of one run per binary (strace -c -f) per restored file.
# BASE=path/to/another/lazarus adds that binary to the same rounds.
#
#   bash bench/recover-dir.sh
#   PAGES=2001 STRACE=1 BASE=/tmp/old/lazarus bash bench/recover-dir.sh
#
# The line to parse starts with "P3dir ".
set -euo pipefail
cd "$(dirname "$0")/.."
PAGES=${PAGES:-20001}
WORK=${WORK:-$(mktemp -d /tmp/lazarus-recover-dir-bench.XXXXXX)}
[ -n "${KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
CACHE=${LAZARUS_E2E_CACHE:-/var/cache/lazarus-e2e}
source bench/lib.sh
need_tools
mkdir -p "$WORK" && : > "$WORK/times"

wp=$(find "$CACHE/wordpress" -maxdepth 4 -type f -name wp-settings.php -printf '%h\n' 2>/dev/null | head -1)
if [ -z "$wp" ]; then
	bash e2e/setup.sh >&2
	wp=$(find "$CACHE/wordpress" -maxdepth 4 -type f -name wp-settings.php -printf '%h\n' | head -1)
fi

echo "== site: $PAGES pages in $WORK/site, server side $wp" >&2
site=$WORK/site
mkdir -p "$site"
para=$(printf 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. %.0s' $(seq 1 30))
{
	echo "<!doctype html><html><head><title>Home</title></head><body><h1>Home</h1>"
	for s in $(seq 1 20); do echo "<a href=\"s$s/\">Section $s</a>"; done
	echo "<p>$para</p></body></html>"
} > "$site/index.html"
per=$(((PAGES - 21) / 20))
for s in $(seq 1 20); do
	mkdir -p "$site/s$s"
	{
		echo "<!doctype html><html><head><title>Section $s</title></head><body>"
		for p in $(seq 1 "$per"); do echo "<a href=\"p$p.html\">Page $p</a>"; done
		echo "<p>$para</p></body></html>"
	} > "$site/s$s/index.html"
	for p in $(seq 1 "$per"); do
		echo "<!doctype html><html><head><title>Page $s.$p</title></head><body><p>$para</p></body></html>" > "$site/s$s/p$p.html"
	done
done

go build -o "$WORK/lazarus" ./cmd/lazarus
"$WORK/lazarus" keygen -o "$WORK/keys" > /dev/null
"$WORK/lazarus" inject --site "$site" --site-url https://example.org/ --key "$WORK/keys/server.key" \
	--include "$wp=wordpress" --state "$WORK/state" > "$WORK/inject.out"
sed -n '1,4p' "$WORK/inject.out"
sync

runs=(lazarus)
[ -z "${BASE:-}" ] || runs+=(base)
bin() { if [ "$1" = lazarus ]; then echo "$WORK/lazarus"; else echo "$BASE"; fi; }
args=(--source "dir=$site" --url https://example.org/ --key "$WORK/keys/owner.key")
for round in $(seq 1 "${ROUNDS:-3}"); do
	for r in "${runs[@]}"; do
		out=$WORK/restored.$round.$r
		timed "$r" "$(bin "$r")" recover "${args[@]}" --out "$out"
		diff -r --no-dereference "$wp" "$out/wordpress" > /dev/null || { echo "$r: restored tree differs from the input" >&2; exit 1; }
	done
done
sed -n '1,3p' "$WORK/out"
files=$(find "$WORK/restored.1.lazarus/wordpress" | wc -l)
echo "== results: $PAGES pages, $files files and directories restored, $(nproc) cores, best of ${ROUNDS:-3}"
line="P3dir files=$files"
for r in "${runs[@]}"; do
	calls=""
	if [ -n "${STRACE:-}" ] && command -v strace > /dev/null; then
		strace -c -f -o "$WORK/strace.$r.txt" "$(bin "$r")" recover "${args[@]}" --out "$WORK/strace.$r" > /dev/null 2>&1 || true
		calls=$(awk '$NF == "total" { print $4 }' "$WORK/strace.$r.txt")
	fi
	printf '%-8s %6.2f s wall %6.2f s user %6.2f s sys %5.0f MiB peak RSS %s\n' "$r" "$(best "$r" 2)" "$(best "$r" 3)" "$(best "$r" 4)" \
		"$(awk -v n="$r" '$1 == n && $5 > m { m = $5 } END { print m / 1024 }' "$WORK/times")" \
		"${calls:+$(awk -v c="$calls" -v f="$files" 'BEGIN { printf "%.1f system calls per restored file", c / f }')}"
	line="$line ${r}_s=$(best "$r" 2) ${r}_user_s=$(best "$r" 3) ${r}_sys_s=$(best "$r" 4)${calls:+ ${r}_calls=$calls}"
done
echo "$line"
