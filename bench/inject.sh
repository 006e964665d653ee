#!/usr/bin/env bash
# P1: `lazarus inject` of a real server side into a fresh
# static site, side by side (interleaved, best of $RUNS) with
#   tgza: tar -cz SRC | age -r RECIPIENT > /dev/null        (Debian's age)
#   par2: tar -cz SRC | age -r RECIPIENT > F && par2 create -r100 F   (Debian's par2)
# SRC is Debian's WordPress tree (unpacked by e2e/setup.sh, run here if
# missing) and a SQLite .dump (a few MB) of a WordPress-like database
# this script makes with sqlite3; the site has $PAGES pages (root → 20
# sections → pages). Every inject starts from a fresh copy of the site
# and an empty state directory; the copy is made outside the timing.
#
#   bash bench/inject.sh                        # the comparison above
#   BASE=/tmp/p1base bash bench/inject.sh       # also BASE's lazarus (a checkout), interleaved
#   SIZE=1GiB bash bench/inject.sh              # peak RSS of inject on a 1 GiB input
#
# SIZE=1GiB replaces SRC by 1 GiB of files (copies of the WordPress tree
# plus 64 MiB of random files) and the site by $PAGES (default 4001)
# pages with --page-budget 900KiB, room for the blocks the default target
# needs, and runs inject once per binary.
#
# Lines to parse start with "P1 ":
#   P1 inject_s=… tgza_s=… par2_s=… ratio_tgza=… ratio_par2=…   (best of $RUNS wall times)
#   P1 mean inject_s=… tgza_s=… par2_s=… ratio_tgza=… ratio_par2=…
#   P1 cpu inject_s=… …                                         (best user+sys CPU seconds)
#   P1 base_inject_s=… ratio_base=…                             (with BASE)
#   P1 rss_1gib_mib=… inject_1gib_s=… [base_rss_1gib_mib=…]     (SIZE=1GiB)
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${SIZE:-}
RUNS=${RUNS:-3}
if [ "$SIZE" = 1GiB ]; then PAGES=${PAGES:-4001}; else PAGES=${PAGES:-1001}; fi
case "$SIZE" in "" | 1GiB) ;; *) echo "bench/inject.sh: SIZE is empty or 1GiB, not $SIZE" >&2; exit 2 ;; esac
WORK=${WORK:-$(mktemp -d /tmp/lazarus-inject-bench.XXXXXX)}
[ -n "${KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
CACHE=${LAZARUS_E2E_CACHE:-/var/cache/lazarus-e2e}

source bench/lib.sh
need_tools
mkdir -p "$WORK" && : > "$WORK/times"

# wordpress prints the unpacked WordPress tree, unpacking it if missing.
wordpress() {
	local wp
	wp=$(find "$CACHE/wordpress" -maxdepth 4 -type f -name wp-settings.php -printf '%h\n' 2>/dev/null | head -1)
	if [ -z "$wp" ]; then
		bash e2e/setup.sh >&2
		wp=$(find "$CACHE/wordpress" -maxdepth 4 -type f -name wp-settings.php -printf '%h\n' | head -1)
	fi
	[ -n "$wp" ] || { echo "bench/inject.sh: no WordPress tree under $CACHE/wordpress" >&2; exit 1; }
	echo "$wp"
}

# make_db writes $WORK/db.sql: the .dump of a WordPress-like database of
# 4,000 posts and 20,000 comments (a few MB of SQL).
make_db() {
	rm -f "$WORK/site.db"
	sqlite3 "$WORK/site.db" <<-'EOF'
		CREATE TABLE wp_posts (ID INTEGER PRIMARY KEY, post_author INTEGER, post_date TEXT,
			post_title TEXT, post_name TEXT, post_content TEXT, post_status TEXT, comment_count INTEGER);
		CREATE TABLE wp_comments (comment_ID INTEGER PRIMARY KEY, comment_post_ID INTEGER,
			comment_author TEXT, comment_author_email TEXT, comment_date TEXT, comment_content TEXT);
		CREATE TABLE words (w TEXT);
		INSERT INTO words VALUES ('the'),('server'),('archive'),('page'),('backup'),('crawl'),('lorem'),
			('ipsum'),('database'),('comment'),('post'),('theme'),('plugin'),('media'),('upload'),
			('draft'),('publish'),('category'),('tag'),('author'),('site'),('network'),('cache'),('query');
		CREATE TABLE pool (i INTEGER, w TEXT);
		INSERT INTO pool SELECT row_number() OVER (), a.w FROM words AS a, words AS b;
		WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 4000)
		INSERT INTO wp_posts SELECT x, 1 + x % 7, datetime(1600000000 + x * 3600, 'unixepoch'),
			'Post ' || x, 'post-' || x,
			(SELECT group_concat(w, ' ') FROM pool WHERE i + x > 0 AND abs(random()) % 5 = 0),
			'publish', 5 FROM n;
		WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 20000)
		INSERT INTO wp_comments SELECT x, 1 + x % 4000, 'visitor' || (x % 997), 'v' || (x % 997) || '@example.org',
			datetime(1600000000 + x * 600, 'unixepoch'), hex(randomblob(16)) || ' ' ||
			(SELECT group_concat(w, ' ') FROM pool WHERE i + x > 0 AND abs(random()) % 30 = 0) FROM n;
		DROP TABLE pool;
		DROP TABLE words;
	EOF
	sqlite3 "$WORK/site.db" .dump > "$WORK/src/db.sql"
	rm -f "$WORK/site.db"
}

# make_big fills $WORK/src with 1 GiB: copies of the WordPress tree and
# 64 MiB of random files.
make_big() {
	local wp=$1 i=0
	mkdir -p "$WORK/src/random"
	for j in $(seq 1 16); do head -c $((4 * 1024 * 1024)) /dev/urandom > "$WORK/src/random/blob$j.bin"; done
	while [ "$(du -sb "$WORK/src" | cut -f1)" -lt $((1024 * 1024 * 1024)) ]; do
		cp -a "$wp" "$WORK/src/copy$i"
		i=$((i + 1))
	done
}

# make_site writes a $PAGES-page site into $WORK/site.orig (root → 20
# sections → pages, ~20 KiB each).
make_site() {
	local dir=$WORK/site.orig para per
	mkdir -p "$dir"
	para=$(printf 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. %.0s' $(seq 1 300))
	{
		echo "<!doctype html><html><head><title>Home</title></head><body><h1>Home</h1>"
		for s in $(seq 1 20); do echo "<a href=\"s$s/\">Section $s</a>"; done
		echo "<p>$para</p></body></html>"
	} > "$dir/index.html"
	per=$(( (PAGES - 21) / 20 ))
	for s in $(seq 1 20); do
		mkdir -p "$dir/s$s"
		{
			echo "<!doctype html><html><head><title>Section $s</title></head><body>"
			for p in $(seq 1 "$per"); do echo "<a href=\"p$p.html\">Page $p</a>"; done
			echo "<p>$para</p></body></html>"
		} > "$dir/s$s/index.html"
		for p in $(seq 1 "$per"); do
			echo "<!doctype html><html><head><title>Page $s.$p</title></head><body><p>$para</p></body></html>" > "$dir/s$s/p$p.html"
		done
	done
}

# inject NAME BINARY: one inject run into a fresh site and state.
inject() {
	rm -rf "$WORK/site" "$WORK/state"
	cp -a "$WORK/site.orig" "$WORK/site"
	sync
	timed "$1" "$2" inject --site "$WORK/site" --site-url https://example.org/ --key "$WORK/keys/server.key" \
		"${includes[@]}" --state "$WORK/state"
}

wp=$(wordpress)
mkdir -p "$WORK/src"
if [ "$SIZE" = 1GiB ]; then
	echo "== source: 1 GiB (copies of $wp, 64 MiB random) in $WORK/src" >&2
	make_big "$wp"
	includes=(--include "$WORK/src=srv" --page-budget 900KiB) # room for the blocks the target needs
	tar_args=(-C "$WORK" src)
else
	echo "== source: $wp and a SQLite .dump" >&2
	make_db
	includes=(--include "$wp=wordpress" --include "$WORK/src/db.sql=db")
	tar_args=(-C "$(dirname "$wp")" "$(basename "$wp")" -C "$WORK/src" db.sql)
fi
echo "== site: $PAGES pages" >&2
make_site

go build -o "$WORK/lazarus" ./cmd/lazarus
if [ -n "${BASE:-}" ]; then
	(cd "$BASE" && go build -o "$WORK/lazarus-base" ./cmd/lazarus)
fi
"$WORK/lazarus" keygen -o "$WORK/keys" > /dev/null
age-keygen -o "$WORK/age.key" 2>/dev/null
recipient=$(age-keygen -y "$WORK/age.key")
tgza="tar -cz ${tar_args[*]} | age -r $recipient"
src_bytes=$(tar -c "${tar_args[@]}" | wc -c) # also warms the page cache

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

if [ "$SIZE" = 1GiB ]; then
	echo "== results: $src_bytes bytes of tar, $PAGES pages, $(nproc) cores"
	inject inject "$WORK/lazarus"
	[ -z "${BASE:-}" ] || inject base "$WORK/lazarus-base"
	rss=$(( $(best inject 5) / 1024 ))
	line="P1 rss_1gib_mib=$rss inject_1gib_s=$(best inject 2)"
	[ -z "${BASE:-}" ] || line="$line base_rss_1gib_mib=$(( $(best base 5) / 1024 )) base_inject_1gib_s=$(best base 2)"
	echo "$line"
	exit 0
fi

for i in $(seq 1 "$RUNS"); do
	echo "== run $i of $RUNS" >&2
	timed tgza sh -c "$tgza > /dev/null"
	rm -rf "$WORK/par2" && mkdir -p "$WORK/par2" && sync
	timed par2 sh -c "$tgza > '$WORK/par2/src.tar.gz.age' && par2 create -q -q -r100 '$WORK/par2/src.tar.gz.age'"
	inject inject "$WORK/lazarus"
	[ -z "${BASE:-}" ] || inject base "$WORK/lazarus-base"
done

echo "== results: $src_bytes bytes of tar, $PAGES pages, $(nproc) cores; best (mean) of $RUNS"
names="tgza par2 inject"
[ -z "${BASE:-}" ] || names="$names base"
printf '%-8s %14s %14s %14s %10s\n' "" "wall s" "user s" "sys s" "RSS MiB"
for n in $names; do
	printf '%-8s %6s (%5s) %6s (%5s) %6s (%5s) %10d\n' "$n" "$(best "$n" 2)" "$(mean "$n" 2)" \
		"$(best "$n" 3)" "$(mean "$n" 3)" "$(best "$n" 4)" "$(mean "$n" 4)" $(( $(best "$n" 5) / 1024 ))
done
for f in best mean; do
	i=$($f inject 2) t=$($f tgza 2) p=$($f par2 2)
	prefix="P1"
	[ $f = best ] || prefix="P1 mean"
	echo "$prefix inject_s=$i tgza_s=$t par2_s=$p ratio_tgza=$(ratio "$i" "$t") ratio_par2=$(ratio "$i" "$p")"
done
echo "P1 cpu inject_s=$(best inject 6) tgza_s=$(best tgza 6) par2_s=$(best par2 6) ratio_tgza=$(ratio "$(best inject 6)" "$(best tgza 6)") ratio_par2=$(ratio "$(best inject 6)" "$(best par2 6)")"
if [ -n "${BASE:-}" ]; then
	echo "P1 base_inject_s=$(best base 2) ratio_base=$(ratio "$(best inject 2)" "$(best base 2)") base_ratio_tgza=$(ratio "$(best base 2)" "$(best tgza 2)") base_ratio_par2=$(ratio "$(best base 2)" "$(best par2 2)")"
fi
