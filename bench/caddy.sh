#!/usr/bin/env bash
# The Caddy module under load: a 38 KiB page that gains ~60 KiB of blocks,
# served by Caddy + lazarus + file_server, side by side with plain
# file_server serving the same final bytes from disk (wrk, Debian's
# package). Then a 60 s saturation soak with the module's RSS sampled.
#
#   bash bench/caddy.sh
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${WORK:-$(mktemp -d /tmp/lazarus-caddy-bench.XXXXXX)}
cleanup() { pkill -f "$WORK/Caddyfile" 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$WORK"; }
trap cleanup EXIT
command -v wrk >/dev/null || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
export XDG_DATA_HOME="$WORK/data" # Caddy's storage (placement state) stays in the work dir
go build -o "$WORK/caddy" ./cmd/caddy
go build -o "$WORK/lazarus" ./cmd/lazarus
mkdir -p "$WORK/site" "$WORK/src/app" "$WORK/final"
python3 - "$WORK/site/index.html" <<'PY'
import sys
para = "<p>" + "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. " * 6 + "</p>\n"
body = "<!doctype html><html><head><title>Page</title></head><body>\n" + para * 80 + "</body></html>\n"
open(sys.argv[1], "w").write(body)
PY
head -c 200000 /dev/urandom > "$WORK/src/app/blob.bin"
"$WORK/lazarus" keygen -o "$WORK/keys" > /dev/null
(echo /; for i in $(seq 1 40); do echo "/p$i.html"; done) > "$WORK/urls.txt"
"$WORK/lazarus" inject --bundle "$WORK/bundle" --urls "$WORK/urls.txt" --site-url https://example.org/ \
	--key "$WORK/keys/server.key" --include "$WORK/src/app" --state "$WORK/state" \
	--max-block-bytes 44KiB --page-budget 80KiB > /dev/null
printf '{\n\tadmin off\n\tauto_https off\n}\n:18081 {\n\tlazarus {\n\t\tbundle %s\n\t}\n\tfile_server {\n\t\troot %s\n\t}\n}\n' "$WORK/bundle" "$WORK/site" > "$WORK/Caddyfile.lz"
printf '{\n\tadmin off\n\tauto_https off\n}\n:18082 {\n\tfile_server {\n\t\troot %s\n\t}\n}\n' "$WORK/final" > "$WORK/Caddyfile.plain"
"$WORK/caddy" run --config "$WORK/Caddyfile.lz" --adapter caddyfile > "$WORK/lz.log" 2>&1 &
sleep 2
curl -s http://127.0.0.1:18081/ -o "$WORK/final/index.html"
"$WORK/caddy" run --config "$WORK/Caddyfile.plain" --adapter caddyfile > "$WORK/plain.log" 2>&1 &
sleep 2
echo "page: $(stat -c %s "$WORK/site/index.html") bytes → $(stat -c %s "$WORK/final/index.html") bytes with blocks"
for u in 18081 18082; do
	echo "== wrk -t2 -c32 -d20s :$u ($([ $u = 18081 ] && echo 'lazarus + file_server' || echo 'file_server, same final bytes'))"
	wrk -t2 -c32 -d20s --latency "http://127.0.0.1:$u/" | grep -E "Requests/sec|99%"
done
pid=$(pgrep -f "$WORK/Caddyfile.lz" | head -1)
echo "== 60 s soak of the module: RSS in KiB"
(for t in 0 20 40 60; do echo "t=${t}s rss=$(ps -o rss= -p "$pid")"; sleep 20; done) &
sampler=$!
wrk -t2 -c32 -d60s "http://127.0.0.1:18081/" | grep -E "Requests/sec"
wait "$sampler" # not the Caddy servers, which run until cleanup
