#!/usr/bin/env bash
# P2, serving: wrk against Caddy with the Lazarus module, side by side with
# plain file_server serving the same final bytes from disk and with Caddy's
# templates handler in front of file_server (another handler that reads and
# rewrites every HTML page), each with and without `encode gzip`. Rounds are
# interleaved and the best of ROUNDS is kept for each; p99 is that run's.
# Then a SOAK-second mixed load on the module (carrier pages, CSS and PNG,
# HEAD, If-None-Match, Range, gzip) with Caddy's RSS sampled every 5 s.
#
#   bash bench/caddy.sh                 # DUR=8s ROUNDS=3 SOAK=60 PORT0=18081
#
# It uses ports PORT0 to PORT0+5 on 127.0.0.1 and stops if one is taken.
# Short runs (DUR of a few seconds, SOAK under 30) are only indicative:
# the RSS growth needs SOAK ≥ 30 (samples every 5 s after a 10 s warm-up).
#
# The last lines are machine-readable (bench/run.sh reads them):
#   P2 NAME rps=… p99_ms=…              one per configuration
#   P2 soak requests=… errors=… rss_kib=… rss_growth=…
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${DUR:-8s}
ROUNDS=${ROUNDS:-3}
SOAK=${SOAK:-60}
PORT0=${PORT0:-18081}
WORK=${WORK:-$(mktemp -d /tmp/lazarus-caddy-bench.XXXXXX)}
cleanup() { pkill -f "$WORK/Caddyfile" 2>/dev/null || true; wait 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$WORK"; }
trap cleanup EXIT
source bench/lib.sh
need_tools wrk:wrk
export XDG_DATA_HOME="$WORK/data" # Caddy's storage (placement state) stays in the work dir
go build -o "$WORK/caddy" ./cmd/caddy
go build -o "$WORK/lazarus" ./cmd/lazarus

echo "== site: a 38 KiB root linking 40 pages like it, a stylesheet and an image; 200 KB server side" >&2
mkdir -p "$WORK/site" "$WORK/src/app" "$WORK/final"
para="<p>$(printf 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. %.0s' 1 2 3 4 5 6)</p>"
page() { # page TITLE LINKS... : a ~38 KiB HTML page
	local title=$1; shift
	echo "<!doctype html><html><head><title>$title</title><link rel=stylesheet href=/style.css></head><body>"
	for l in "$@"; do echo "<a href=\"$l\">$l</a>"; done
	for _ in $(seq 1 80); do echo "$para"; done
	echo "<img src=/logo.png></body></html>"
}
links=(); for i in $(seq 1 40); do links+=("/p$i.html"); done
page Home "${links[@]}" > "$WORK/site/index.html"
for i in $(seq 1 40); do page "Page $i" / > "$WORK/site/p$i.html"; done
for _ in $(seq 1 200); do echo "p { margin: 0 auto; color: #333; font-family: serif; }"; done > "$WORK/site/style.css"
head -c 20000 /dev/urandom > "$WORK/site/logo.png"
head -c 200000 /dev/urandom > "$WORK/src/app/blob.bin"
"$WORK/lazarus" keygen -o "$WORK/keys" > /dev/null
(echo /; for i in $(seq 1 40); do echo "/p$i.html"; done) > "$WORK/urls.txt"
"$WORK/lazarus" inject --bundle "$WORK/bundle" --urls "$WORK/urls.txt" --site-url https://example.org/ \
	--key "$WORK/keys/server.key" --include "$WORK/src/app" --state "$WORK/state" > /dev/null

# caddyfile NAME PORT ROOT HANDLERS...: one Caddy server, started now.
caddyfile() {
	local name=$1 port=$2 root=$3; shift 3
	{
		printf '{\n\tadmin off\n\tauto_https off\n\tpersist_config off\n}\n:%s {\n' "$port"
		for h in "$@"; do printf '\t%s\n' "$h"; done
		printf '\tfile_server {\n\t\troot %s\n\t}\n}\n' "$root"
	} > "$WORK/Caddyfile.$name"
	"$WORK/caddy" run --config "$WORK/Caddyfile.$name" --adapter caddyfile > "$WORK/$name.log" 2>&1 &
	pids[$name]=$!
}
declare -A pids
names=(lazarus plain templates lazarus+gzip plain+gzip templates+gzip)
for i in $(seq 0 5); do
	if (exec 3<>"/dev/tcp/127.0.0.1/$((PORT0 + i))") 2>/dev/null; then
		echo "bench/caddy.sh: port $((PORT0 + i)) is taken; set PORT0 to the first of 6 free ports" >&2
		exit 1
	fi
done
caddyfile lazarus $((PORT0)) "$WORK/site" "lazarus * $WORK/bundle"
caddyfile plain $((PORT0 + 1)) "$WORK/final"
caddyfile templates $((PORT0 + 2)) "$WORK/final" templates
caddyfile lazarus+gzip $((PORT0 + 3)) "$WORK/site" "encode gzip" "lazarus * $WORK/bundle"
caddyfile plain+gzip $((PORT0 + 4)) "$WORK/final" "encode gzip"
caddyfile templates+gzip $((PORT0 + 5)) "$WORK/final" "encode gzip" templates
for i in $(seq 0 5); do
	for _ in $(seq 1 50); do [ "$(curl -s -o /dev/null -w "%{http_code}" "http://127.0.0.1:$((PORT0 + i))/")" != 000 ] && break; sleep 0.2; done
	kill -0 "${pids[${names[$i]}]}" 2>/dev/null || { # a port already taken, say
		echo "bench/caddy.sh: Caddy for ${names[$i]} exited (PORT0=$PORT0 picks other ports):" >&2
		tail -3 "$WORK/${names[$i]}.log" >&2; exit 1; }
done

# The plain and templates servers serve the module's output, byte for byte.
cp "$WORK/site/style.css" "$WORK/site/logo.png" "$WORK/final/"
for p in index.html "${links[@]#/}"; do
	curl -sf "http://127.0.0.1:$PORT0/${p%index.html}" -o "$WORK/final/$p" ||
		{ echo "bench/caddy.sh: GET /${p%index.html} from the module failed; its log: $WORK/lazarus.log" >&2; tail -3 "$WORK/lazarus.log" >&2; exit 1; }
done
for i in 1 2; do
	curl -sf "http://127.0.0.1:$((PORT0 + i))/" | cmp -s - "$WORK/final/index.html" ||
		{ echo "bench/caddy.sh: ${names[$i]} does not serve the module's bytes" >&2; exit 1; }
done
echo "page: $(stat -c %s "$WORK/site/index.html") bytes → $(stat -c %s "$WORK/final/index.html") bytes with blocks; $(nproc) cores"

# Throughput: ROUNDS interleaved rounds of wrk on the root page, best kept.
declare -A best p99
for r in $(seq 1 "$ROUNDS"); do
	for i in "${!names[@]}"; do
		n=${names[$i]}
		hdr=(); [[ $n == *gzip ]] && hdr=(-H 'Accept-Encoding: gzip')
		out=$(wrk -t2 -c32 -d"$DUR" --latency "${hdr[@]}" "http://127.0.0.1:$((PORT0 + i))/")
		rps=$(awk '/^Requests\/sec/ { print $2 }' <<<"$out")
		lat=$(awk '$1 == "99%" { v = $2; if (v ~ /us$/) v = v / 1000; else if (v ~ /ms$/) v = v + 0; else if (v ~ /s$/) v = v * 1000; print v }' <<<"$out")
		errs=$(awk '/Non-2xx|Socket errors/' <<<"$out")
		[ -z "$errs" ] || { echo "bench/caddy.sh: $n: $errs" >&2; exit 1; }
		echo "round $r  $(printf '%-15s' "$n") $(printf '%10.0f' "$rps") req/s  p99 ${lat} ms" >&2
		if awk -v a="$rps" -v b="${best[$n]:-0}" 'BEGIN { exit !(a > b) }'; then best[$n]=$rps p99[$n]=$lat; fi
	done
done

# Soak: the module (with encode gzip) under a mixed load for SOAK seconds:
# wrk sends GETs (wrk cannot read HEAD answers), a curl loop beside it
# sends HEAD, conditional and Range requests and checks each status.
cat > "$WORK/mixed.lua" <<'LUA'
-- Mixed GETs: the root, carrier pages, CSS, PNG, a conditional GET with the
-- root's ETag, a Range request and gzip.
local i, etag = 0, nil
request = function()
	i = i + 1
	local k, page = i % 7, "/p" .. (i % 40 + 1) .. ".html"
	if k == 0 then return wrk.format("GET", "/")
	elseif k == 1 then return wrk.format("GET", page)
	elseif k == 2 then return wrk.format("GET", "/style.css")
	elseif k == 3 and etag then return wrk.format("GET", "/", { ["If-None-Match"] = etag })
	elseif k == 4 then return wrk.format("GET", page, { ["Range"] = "bytes=0-99" })
	elseif k == 5 then return wrk.format("GET", "/logo.png")
	end
	return wrk.format("GET", page, { ["Accept-Encoding"] = "gzip" })
end
response = function(status, headers, body)
	if not etag then etag = headers["Etag"] or headers["ETag"] end
end
LUA
soakport=$((PORT0 + 3))
base="http://127.0.0.1:$soakport"
pid=${pids[lazarus+gzip]}
echo "== ${SOAK} s mixed soak of the module (encode gzip → lazarus → file_server), RSS every 5 s" >&2
(for _ in $(seq 0 5 "$SOAK"); do ps -o rss= -p "$pid"; sleep 5; done) > "$WORK/rss" &
sampler=$!
# check STATUS... -- CURL ARGS: one request, its status one of STATUS.
check() {
	local want=() got
	while [ "$1" != -- ]; do want+=("$1"); shift; done; shift
	got=$(curl -s -o /dev/null -w '%{http_code}' "$@")
	[[ " ${want[*]} " == *" $got "* ]] && echo ok || echo "bad $got $*"
}
etag=$(curl -sI "$base/" | awk 'tolower($1) == "etag:" { sub(/\r$/, ""); print $2 }')
(end=$((SECONDS + SOAK)); while [ $SECONDS -lt $end ]; do
	p="/p$((RANDOM % 40 + 1)).html"
	check 200 -- -I "$base$p"
	check 304 -- -H "If-None-Match: $etag" "$base/"
	check 206 200 -- -H 'Range: bytes=0-99' "$base$p"
	check 200 -- -H 'Accept-Encoding: gzip' "$base$p"
done) > "$WORK/side" &
side=$!
soak=$(wrk -t2 -c32 -d"${SOAK}s" -s "$WORK/mixed.lua" "$base/")
wait "$sampler" "$side"
echo "$soak" # wrk's own summary, errors by kind included
grep '^bad' "$WORK/side" | sort | uniq -c | head -5 || true
requests=$(( $(awk '/requests in/ { print $1 }' <<<"$soak") + $(wc -l < "$WORK/side") ))
errors=$(( $(awk '/Non-2xx/ { n += $NF } /Socket errors/ { gsub(",", ""); n += $4 + $6 + $8 + $10 } END { print n + 0 }' <<<"$soak") + $(grep -c '^bad' "$WORK/side" || true) ))
rss=$(tr -s ' \n' ',' < "$WORK/rss" | sed 's/^,//; s/,$//')
# growth: the largest RSS sample of the second half against the largest of
# the first half, both after the first 10 s (warm-up).
growth=$(tr -s ' ' '\n' < "$WORK/rss" | awk 'NF { v[n++] = $1 } END {
	h = int((n + 2) / 2); for (i = 2; i < h; i++) if (v[i] > a) a = v[i]; for (i = h; i < n; i++) if (v[i] > b) b = v[i]
	if (a > 0 && b > 0) printf "%.3f", b / a }')

for n in "${names[@]}"; do echo "P2 $n rps=${best[$n]} p99_ms=${p99[$n]}"; done
echo "P2 soak requests=$requests errors=$errors rss_kib=$rss rss_growth=$growth"
