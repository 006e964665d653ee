#!/usr/bin/env bash
# Measures `lazarus inject` on a ~50 MB source tree and a 1,000-page site,
# side by side with `tar -cz SRC | age -r RECIPIENT > /dev/null` (Debian's
# age, installed here if missing).
#
#   bash bench/inject.sh              # SRC_MIB=50 PAGES=1000
set -euo pipefail
cd "$(dirname "$0")/.."
SRC_MIB=${SRC_MIB:-50}
PAGES=${PAGES:-1000}
WORK=${WORK:-$(mktemp -d /tmp/lazarus-inject-bench.XXXXXX)}
[ -n "${KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT

source bench/lib.sh
need_tools

echo "== source: ${SRC_MIB} MiB of Go source (a server side's code) in $WORK/src" >&2
mkdir -p "$WORK/src"
limit=$((SRC_MIB * 1024 * 1024))
(cd "$(go env GOROOT)/src" && find . -type f -name '*.go' -printf '%s %p\n' | sort -k2 > "$WORK/all")
awk -v limit="$limit" '{ total += $1; print $2; if (total >= limit) exit }' "$WORK/all" > "$WORK/files"
tar -C "$(go env GOROOT)/src" -cf - -T "$WORK/files" | tar -C "$WORK/src" -xf -
src_bytes=$(du -sb "$WORK/src" | cut -f1)
total=$src_bytes

echo "== site: $PAGES pages (root → 20 sections → pages), ~20 KiB each" >&2
mkdir -p "$WORK/site"
para=$(printf 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. %.0s' $(seq 1 300))
{
	echo "<!doctype html><html><head><title>Home</title></head><body><h1>Home</h1>"
	for s in $(seq 1 20); do echo "<a href=\"s$s/\">Section $s</a>"; done
	echo "<p>$para</p></body></html>"
} > "$WORK/site/index.html"
per=$(( (PAGES - 21) / 20 ))
for s in $(seq 1 20); do
	mkdir -p "$WORK/site/s$s"
	{
		echo "<!doctype html><html><head><title>Section $s</title></head><body>"
		for p in $(seq 1 "$per"); do echo "<a href=\"p$p.html\">Page $p</a>"; done
		echo "<p>$para</p></body></html>"
	} > "$WORK/site/s$s/index.html"
	for p in $(seq 1 "$per"); do
		echo "<!doctype html><html><head><title>Page $s.$p</title></head><body><p>$para</p></body></html>" > "$WORK/site/s$s/p$p.html"
	done
done
pages=$(find "$WORK/site" -name '*.html' | wc -l)

go build -o "$WORK/lazarus" ./cmd/lazarus
"$WORK/lazarus" keygen -o "$WORK/keys" > /dev/null
age-keygen -o "$WORK/age.key" 2>/dev/null
recipient=$(age-keygen -y "$WORK/age.key")
sync


echo "== results: $src_bytes source bytes, $pages pages, $(nproc) cores"
measure "tar -cz SRC | age -r (x25519)" sh -c "tar -cz -C '$WORK/src' . | age -r '$recipient' > /dev/null"
measure "lazarus inject (pq-hybrid)" "$WORK/lazarus" inject --site "$WORK/site" --site-url https://example.org/ \
	--key "$WORK/keys/server.key" --include "$WORK/src" --state "$WORK/state"
sed -n '1,3p' "$WORK/out"
measure "lazarus inject again (unchanged)" "$WORK/lazarus" inject --site "$WORK/site" --site-url https://example.org/ \
	--key "$WORK/keys/server.key" --include "$WORK/src" --state "$WORK/state"
sed -n '1p' "$WORK/out"
echo "site bytes after injection: $(du -sb "$WORK/site" | cut -f1)"
