# Shared by the bench scripts: sourced, not run.

# need_tools [COMMAND:PACKAGE...] installs the Debian packages the bench
# scripts compare with (age, par2, sqlite3), GNU time and any given, when
# their command is missing.
need_tools() {
	local missing=() pair
	for pair in age:age age-keygen:age par2:par2 sqlite3:sqlite3 /usr/bin/time:time "$@"; do
		command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
	done
	if [ "${#missing[@]}" -gt 0 ]; then
		echo "installing Debian's ${missing[*]}..." >&2
		apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
	fi
}

# measure NAME COMMAND...: runs a command, prints wall time, throughput of
# $total bytes (if set) and peak RSS; its output is left in $WORK/out.
measure() {
	local name=$1; shift
	/usr/bin/time -f "%e %M" -o "$WORK/time" "$@" > "$WORK/out" 2>&1 || { cat "$WORK/out"; exit 1; }
	read -r secs kib < "$WORK/time"
	awk -v n="$name" -v s="$secs" -v k="$kib" -v b="${total:-0}" 'BEGIN {
		if (b > 0) printf "%-34s %8.2f s %8.1f MB/s %8.0f MiB peak RSS\n", n, s, b/1e6/s, k/1024
		else printf "%-34s %8.2f s %8.0f MiB peak RSS\n", n, s, k/1024 }'
}

# timed NAME COMMAND...: runs a command once and appends
# "NAME wall_s user_s sys_s peak_rss_kib cpu_s" (cpu_s = user_s + sys_s)
# to $WORK/times; its output is
# left in $WORK/out (shown, and the script stopped, if it fails). The
# figures cover the command and everything it waits for (a pipeline in
# sh -c included; peak RSS is its largest process's).
timed() {
	local name=$1; shift
	/usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "$@" > "$WORK/out" 2>&1 || { cat "$WORK/out"; exit 1; }
	awk -v n="$name" '{ print n, $1, $2, $3, $4, $2 + $3 }' "$WORK/time" >> "$WORK/times"
}

# best NAME FIELD: the smallest FIELD (2 wall, 3 user, 4 sys, 5 RSS KiB, 6 CPU)
# of NAME's runs in $WORK/times.
best() {
	awk -v n="$1" -v f="$2" '$1 == n && (b == "" || $f + 0 < b + 0) { b = $f } END { print b }' "$WORK/times"
}

# mean NAME FIELD: the mean FIELD of NAME's runs in $WORK/times.
mean() {
	awk -v n="$1" -v f="$2" '$1 == n { s += $f; c++ } END { if (c) printf "%.2f\n", s / c }' "$WORK/times"
}
