# Shared by the bench scripts: sourced, not run.

# need_tools installs Debian's age and time packages when missing.
need_tools() {
	if ! command -v age >/dev/null || ! command -v age-keygen >/dev/null || [ ! -x /usr/bin/time ]; then
		echo "installing Debian's age and time packages..." >&2
		apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq age time >/dev/null
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
