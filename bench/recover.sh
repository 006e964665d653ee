#!/usr/bin/env bash
# Measures `lazarus recover` reading a large WARC file, side by side with
# `zcat` of the same file (the floor for any reader of it).
#
#   bash bench/recover.sh            # ~1 GB WARC (SIZE_MIB=512 of input)
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MIB=${SIZE_MIB:-512}
WORK=${WORK:-$(mktemp -d /tmp/lazarus-recover-bench.XXXXXX)}
[ -n "${KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
source bench/lib.sh
need_tools

echo "== input: ${SIZE_MIB} MiB (half Go source, half random) in $WORK/src" >&2
mkdir -p "$WORK/src/text" "$WORK/src/bin"
half=$((SIZE_MIB * 1024 * 1024 / 2))
(cd "$(go env GOROOT)/src" && find . -type f -name '*.go' -printf '%s %p\n' | sort -k2 > "$WORK/all")
awk -v limit="$half" '{ total += $1; print $2; if (total >= limit) exit }' "$WORK/all" > "$WORK/files"
tar -C "$(go env GOROOT)/src" -cf - -T "$WORK/files" | tar -C "$WORK/src/text" -xf -
for j in $(seq 1 $((SIZE_MIB / 8))); do head -c $((4 * 1024 * 1024)) /dev/urandom > "$WORK/src/bin/blob$j.bin"; done

go build -o "$WORK/pipeline" ./bench/pipeline
go build -o "$WORK/lazarus" ./cmd/lazarus
"$WORK/pipeline" -encode -src "$WORK/src" -pages "$WORK/pages" -warc "$WORK/crawl.warc.gz" > /dev/null
total=$(stat -c %s "$WORK/crawl.warc.gz")
sync
echo "== results: $(du -sb "$WORK/src" | cut -f1) input bytes, WARC of $total bytes, $(nproc) cores"
measure "zcat crawl.warc.gz" sh -c "zcat '$WORK/crawl.warc.gz' > /dev/null"
measure "lazarus recover --source warc=" "$WORK/lazarus" recover --source "warc=$WORK/crawl.warc.gz" \
	--key "$WORK/pages/owner.key" --out "$WORK/restored"
sed -n '1,3p' "$WORK/out"
diff -r -x recovery.json -x .lazarus-recover "$WORK/src" "$WORK/restored" > /dev/null && echo "restored tree identical: yes"
