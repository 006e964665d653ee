#!/usr/bin/env bash
# Runs the performance goals of docs/PERFORMANCE.md side by side with the
# alternatives, in one run, and prints one table of ratios: each goal, what
# was measured, and whether it is met. Installs what it needs (Debian's
# age, par2, sqlite3, wrk; the WordPress tree through e2e/setup.sh).
#
#   bash bench/run.sh              # all of P1 P2 P3 P4 (~15 minutes on 2 cores)
#   bash bench/run.sh P2 P4        # some of them
#   bash bench/run.sh --table DIR  # the table of an earlier run (its logs)
#
# Each part's own script prints machine-readable "P… key=value" lines; their
# full output is kept in $LOG (printed at the start).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --table ]; then # print the table of an earlier run again
	[ -f "${2:-}/results" ] || { echo "usage: bash bench/run.sh --table LOGDIR (a run's logs)" >&2; exit 2; }
	LOG=$2 parts=()
else
	parts=("$@")
	for p in ${parts[@]+"${parts[@]}"}; do
		[[ $p =~ ^P[1-4]$ ]] || { echo "bench/run.sh: unknown part $p (P1 P2 P3 P4)" >&2; exit 2; }
	done
	LOG=${LOG:-$(mktemp -d /tmp/lazarus-bench.XXXXXX)}
	mkdir -p "$LOG"
	# P3 first: it creates thousands of files, which ext4 makes slower for a
	# while after many were deleted (it skips recently freed inodes), and
	# P1 deletes its trees (1 GiB of them) when it ends.
	[ ${#parts[@]} -gt 0 ] || parts=(P3 P4 P2 P1)
	echo "== bench/run.sh: ${parts[*]} on $(nproc) cores, $(go version | cut -d' ' -f3); logs in $LOG" >&2
	: > "$LOG/results"
fi

# run NAME COMMAND...: runs one part (NAME is P1… or P1-something), its
# output in $LOG/NAME.log, and keeps its "P… key=value" lines in
# $LOG/results.
run() {
	local name=$1 part=${1%%-*}; shift
	echo "== $name: $*" >&2
	if ! "$@" > "$LOG/$name.log" 2>&1; then
		echo "bench/run.sh: $name failed; the end of $LOG/$name.log:" >&2
		tail -20 "$LOG/$name.log" >&2
		echo "$part failed=1" >> "$LOG/results"
		return
	fi
	grep -E "^$part " "$LOG/$name.log" >> "$LOG/results" || true
}

# p4: recover's requests against the minimum on a 200-page site, with no
# faults and under the 30% fault mix (recover/hardening_test.go), as
# "P4 none …" and "P4 mix30 …" lines.
p4() {
	LAZARUS_P4_PAGES=200 go test ./recover -run 'TestP4Requests$' -count 1 -v |
		tee /dev/stderr | sed -n 's/.*P4 requests: faults=\([^ ]*\) \(.*\) by kind.*/P4 \1 \2/p'
}

for p in ${parts[@]+"${parts[@]}"}; do
	case $p in
	P1) run P1 bash bench/inject.sh; run P1-1GiB env SIZE=1GiB bash bench/inject.sh ;;
	P2) run P2 bash bench/caddy.sh ;;
	P3) run P3 bash bench/recover.sh ;;
	P4) run P4 p4 ;;
	esac
done

# The table: one row per goal, from the collected lines.
awk '
	# v(part, key): the value of key=… on the first line of part (and of
	# the named sub-measure, for P2 lines "P2 NAME key=…").
	function v(part, key,    i) { return (part SUBSEP key) in val ? val[part, key] : "" }
	function row(goal, got, want, met) {
		printf "%-46s %14s  %-12s %s\n", goal, got, want, met
	}
	function ratio(goal, a, b, want, op, bound,    r) {
		if (a == "" || b == "" || b + 0 == 0) { row(goal, "n/a", want, "not measured"); return }
		r = a / b
		row(goal, sprintf("%.2fx", r), want, want ~ /^\(/ ? "" : (op == "<=" ? r <= bound : r >= bound) ? "met" : "NOT MET")
	}
	function value(goal, x, unit, want, op, bound) {
		if (x == "") { row(goal, "n/a", want, "not measured"); return }
		row(goal, x unit, want, want ~ /^\(/ ? "" : (op == "<=" ? x + 0 <= bound : op == "==" ? x + 0 == bound : x + 0 >= bound) ? "met" : "NOT MET")
	}
	{
		part = $1; name = ""
		for (i = 2; i <= NF; i++) {
			if (split($i, kv, "=") == 2) val[part, name kv[1]] = kv[2]
			else name = $i "."
		}
		seen[part] = 1
	}
	END {
		printf "%-46s %14s  %-12s %s\n", "goal", "measured", "wanted", "verdict"
		if ("P1" in seen) {
			ratio("P1 inject / (tar -cz | age), wall", v("P1", "inject_s"), v("P1", "tgza_s"), "<= 1.00x", "<=", 1.0)
			ratio("P1 inject / (tar -cz | age), CPU", v("P1", "cpu.inject_s"), v("P1", "cpu.tgza_s"), "(compared)", ">=", 0)
			ratio("P1 inject / (tar -cz | age; par2 -r100)", v("P1", "inject_s"), v("P1", "par2_s"), "<= 0.25x", "<=", 0.25)
			value("P1 inject of 1 GiB, peak RSS", v("P1", "rss_1gib_mib"), " MiB", "<= 256 MiB", "<=", 256)
		}
		if ("P2" in seen) {
			ratio("P2 module / file_server, req/s", v("P2", "lazarus.rps"), v("P2", "plain.rps"), ">= 0.90x", ">=", 0.9)
			ratio("P2 module / file_server, gzip, req/s", v("P2", "lazarus+gzip.rps"), v("P2", "plain+gzip.rps"), ">= 0.90x", ">=", 0.9)
			ratio("P2 module / templates, req/s", v("P2", "lazarus.rps"), v("P2", "templates.rps"), "(compared)", ">=", 0)
			ratio("P2 module / templates, gzip, req/s", v("P2", "lazarus+gzip.rps"), v("P2", "templates+gzip.rps"), "(compared)", ">=", 0)
			ratio("P2 p99 module / file_server", v("P2", "lazarus.p99_ms"), v("P2", "plain.p99_ms"), "(compared)", ">=", 0)
			ratio("P2 p99 module / file_server, gzip", v("P2", "lazarus+gzip.p99_ms"), v("P2", "plain+gzip.p99_ms"), "(compared)", ">=", 0)
			value("P2 mixed soak: failed requests", v("P2", "soak.errors"), "", "= 0", "==", 0)
			value("P2 mixed soak: RSS 2nd half / 1st half", v("P2", "soak.rss_growth"), "", "<= 1.10", "<=", 1.1)
		}
		if ("P3" in seen) {
			ratio("P3 recover / zcat, throughput", v("P3", "zcat_s"), v("P3", "recover_s"), ">= 1.00x", ">=", 1.0)
			value("P3 recover peak RSS", v("P3", "recover_rss_mib"), " MiB", "<= 256 MiB", "<=", 256)
			value("P3 recover user CPU", v("P3", "recover_user_s"), " s", "(compared)", ">=", 0)
			value("P3 recover system CPU (creating files)", v("P3", "recover_sys_s"), " s", "(compared)", ">=", 0)
			value("P3 zcat wall", v("P3", "zcat_s"), " s", "(compared)", ">=", 0)
		}
		if ("P4" in seen) {
			ratio("P4 requests / minimum, no faults", v("P4", "none.ok"), v("P4", "none.minimum"), "<= 1.10x", "<=", 1.1)
			ratio("P4 requests / minimum, 30% fault mix", v("P4", "mix30.ok"), v("P4", "mix30.minimum"), "<= 1.10x", "<=", 1.1)
			ratio("P4 all requests incl. retries / minimum", v("P4", "mix30.sent"), v("P4", "mix30.minimum"), "(compared)", ">=", 0)
		}
		for (p in seen) if (v(p, "failed") != "") printf "%s failed: see its log\n", p
		print ""
		print "Ratios are of this run, side by side: A / B of the two measures in the row (wall seconds for P1,"
		print "requests/s and p99 for P2, zcat seconds / recover seconds for P3, requests for P4)."
		print "\"(compared)\" rows have no goal: they show where the time goes. \"n/a\" means the part"
		print "did not print that figure (see its log). docs/PERFORMANCE.md explains each goal."
	}' "$LOG/results"
echo "logs: $LOG" >&2
