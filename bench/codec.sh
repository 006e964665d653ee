#!/usr/bin/env bash
# Measures the codec on a large input, side by side with `tar -cz | age`.
#
#   bash bench/codec.sh            # 1 GiB input (default)
#   SIZE_MIB=256 bash bench/codec.sh
#
# The input is half Go source text (copies of $GOROOT/src, compressible like
# a site's code) and half random bytes (like images and archives). Prints
# wall time, throughput and peak RSS for: tar -cz | age -r (Debian's age,
# installed here if missing), lazarus encode, lazarus decode.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MIB=${SIZE_MIB:-1024}
WORK=${WORK:-$(mktemp -d /tmp/lazarus-bench.XXXXXX)}
trap 'rm -rf "$WORK"' EXIT

source bench/lib.sh
need_tools

echo "== building input: ${SIZE_MIB} MiB in $WORK/src" >&2
mkdir -p "$WORK/src/text" "$WORK/src/bin"
half=$((SIZE_MIB * 1024 * 1024 / 2))
i=0
while [ "$(du -sb "$WORK/src/text" | cut -f1)" -lt "$half" ]; do
	cp -r "$(go env GOROOT)/src" "$WORK/src/text/copy$i"
	i=$((i + 1))
done
n=$((SIZE_MIB / 2 / 4))
for j in $(seq 1 "$n"); do head -c $((4 * 1024 * 1024)) /dev/urandom > "$WORK/src/bin/blob$j.bin"; done
total=$(du -sb "$WORK/src" | cut -f1)
echo "input bytes: $total" >&2

go build -o "$WORK/pipeline" ./bench/pipeline
age-keygen -o "$WORK/age.key" 2>/dev/null
recipient=$(age-keygen -y "$WORK/age.key")
sync


echo "== results (${total} input bytes, $(nproc) cores)"
measure "tar -cz | age -r (x25519)" sh -c "tar -cz -C '$WORK/src' . | age -r '$recipient' > /dev/null"
measure "lazarus encode (pq-hybrid)" "$WORK/pipeline" -encode -src "$WORK/src" -pages "$WORK/pages"
pages_bytes=$(du -sb "$WORK/pages" | cut -f1)
echo "pages written: $(ls "$WORK/pages" | wc -l) files, $pages_bytes bytes"
measure "cat pages (I/O baseline)" sh -c "cat '$WORK'/pages/*.html > /dev/null"
measure "lazarus decode" "$WORK/pipeline" -decode -pages "$WORK/pages" -key "$WORK/pages/owner.key" -out "$WORK/restored"
diff -r "$WORK/src" "$WORK/restored" > /dev/null && echo "restored tree identical: yes"
