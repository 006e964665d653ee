#!/usr/bin/env bash
# Runs every fuzz target of the module for DURATION each (Go's -fuzztime:
# 10m, 30s, or 5000x) and prints one line per target: executions, new
# interesting inputs, and the verdict. A crasher Go finds is written by
# `go test` into the package's testdata/fuzz/FuzzName/ and stays there as a
# regression seed that every later `go test ./...` runs; the script lists
# them at the end and exits 1.
#
#   bash bench/fuzz.sh 10m            # ≥ 10 minutes per target, by hand
#   bash bench/fuzz.sh 30s 'Place|CDX' # only targets matching a regexp
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-30s}
MATCH=${2:-.}
LOG=${LOG:-$(mktemp -d /tmp/lazarus-fuzz.XXXXXX)}
echo "== fuzzing every target for $DURATION ($(nproc) cores); logs in $LOG" >&2

# targets prints "PACKAGE TARGET" for every fuzz target, in path order.
targets() {
	grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r f; do
		pkg=$(dirname "$f")
		grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //' | while read -r t; do
			echo "$pkg $t"
		done
	done | sort -u
}

failed=()
printf '%-34s %-34s %12s %8s  %s\n' package target execs new result
while read -r pkg t; do
	[[ "$t" =~ $MATCH ]] || continue
	log="$LOG/${pkg//\//_}.$t.log"
	if go test -run '^$' -fuzz "^$t\$" -fuzztime "$DURATION" "$pkg" >"$log" 2>&1; then
		result=ok
	elif ! grep -q 'Failing input written to' "$log" && grep -q 'context deadline exceeded' "$log" &&
		[ "$(grep -c -- '--- FAIL' "$log")" = 1 ]; then
		# Go's fuzzer sometimes reports its own late stop at the time
		# limit this way (no input failed, none is written): not a crasher.
		result="ok (stopped late)"
	else
		result=FAIL
		failed+=("$pkg $t: $log")
	fi
	last=$(grep -E '^fuzz: elapsed' "$log" | tail -1 || true)
	execs=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$last")
	new=$(sed -nE 's/.*new interesting: ([0-9]+).*/\1/p' <<<"$last")
	printf '%-34s %-34s %12s %8s  %s\n' "$pkg" "$t" "${execs:-?}" "${new:-?}" "$result"
done < <(targets)

if ((${#failed[@]})); then
	echo >&2
	echo "crashers (kept under each package's testdata/fuzz/ as regression seeds; fix, then commit them):" >&2
	printf '  %s\n' "${failed[@]}" >&2
	git status --short -- '*/testdata/fuzz/*' >&2 || true
	exit 1
fi
echo "no crasher in any target" >&2
