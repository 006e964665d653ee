#!/usr/bin/env bash
# Measures `lazarus recover` reading a large per-record-gzip WARC file,
# side by side with `zcat` of the same file (the floor for any reader of
# it), interleaved, best of ROUNDS (3) wall times; prints the ratio
# zcat time / recover time (goal ≥ 1.0), CPU seconds and peak RSS.
# BASE=path/to/another/lazarus adds that binary to the same rounds (say,
# one built from an older commit). STRACE=1 also counts the system calls
# of one more run of each binary (strace -c -f) per restored file.
#
#   bash bench/recover.sh            # ~1 GB WARC (SIZE_MIB=512 of input)
#   SIZE_MIB=128 bash bench/recover.sh
#   CODING=zstd bash bench/recover.sh  # the pages as a crawler asking for zstd stores them
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
"$WORK/pipeline" -encode -src "$WORK/src" -pages "$WORK/pages" -warc "$WORK/crawl.warc.gz" -coding "${CODING:-}" > /dev/null
total=$(stat -c %s "$WORK/crawl.warc.gz")
sync
echo "== results: $(du -sb "$WORK/src" | cut -f1) input bytes, WARC of $total bytes, $(nproc) cores, best of ${ROUNDS:-3}"
runs=(lazarus)
[ -z "${BASE:-}" ] || runs+=(base)
for round in $(seq 1 "${ROUNDS:-3}"); do
	timed zcat sh -c "zcat '$WORK/crawl.warc.gz' > /dev/null"
	for r in "${runs[@]}"; do
		bin=$WORK/lazarus
		[ "$r" = lazarus ] || bin=$BASE
		# A new directory each run, all removed at the end: ext4 makes
		# creating files slower for a while after many were deleted
		# (it skips recently freed inodes), which would charge one
		# run for the previous run's clean-up.
		out=$WORK/restored.$round.$r
		timed "$r" "$bin" recover --source "warc=$WORK/crawl.warc.gz" --key "$WORK/pages/owner.key" --out "$out"
		diff -r -x recovery.json -x .lazarus-recover "$WORK/src" "$out" > /dev/null ||
			{ echo "$r: restored tree differs from the input" >&2; exit 1; }
	done
done
sed -n '1,3p' "$WORK/out"
echo "restored tree identical: yes"
zwall=$(best zcat 2)
for r in zcat "${runs[@]}"; do
	awk -v n="$r" -v w="$(best "$r" 2)" -v z="$zwall" -v b="$total" -v cpu="$(awk -v n="$r" '$1 == n && (c == "" || $3 + $4 < c) { c = $3 + $4 } END { print c }' "$WORK/times")" -v k="$(awk -v n="$r" '$1 == n && $5 > m { m = $5 } END { print m }' "$WORK/times")" 'BEGIN {
		printf "%-10s %8.2f s wall %8.1f MB/s %7.2f s cpu %6.0f MiB peak RSS (largest)   zcat/this %.2f\n", n, w, b/1e6/w, cpu, k/1024, z/w }'
done
calls=""
if [ -n "${STRACE:-}" ] && command -v strace > /dev/null; then
	nfiles=$(find "$WORK/src" | wc -l)
	for r in "${runs[@]}"; do
		bin=$WORK/lazarus
		[ "$r" = lazarus ] || bin=$BASE
		strace -c -f -o "$WORK/strace.$r" "$bin" recover --source "warc=$WORK/crawl.warc.gz" --key "$WORK/pages/owner.key" --out "$WORK/strace-out.$r" > /dev/null 2>&1 || true
		n=$(awk '$NF == "total" { print $4 }' "$WORK/strace.$r")
		per=$(awk -v n="$n" -v f="$nfiles" 'BEGIN { printf "%.1f", n / f }')
		echo "$r: $n system calls, $per per restored file or directory ($nfiles)"
		if [ "$r" = lazarus ]; then calls=" recover_calls_per_file=$per"; fi
	done
fi
# The line bench/run.sh reads.
echo "P3 zcat_s=$zwall recover_s=$(best lazarus 2) recover_user_s=$(best lazarus 3) recover_sys_s=$(best lazarus 4) files=$(find "$WORK/src" -type f | wc -l) recover_rss_mib=$(awk '$1 == "lazarus" && $5 > m { m = $5 } END { printf "%.0f", m / 1024 }' "$WORK/times")$calls"
