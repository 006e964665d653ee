#!/bin/sh
# resurrect-wordpress.sh: bring a WordPress site back up from what
# `lazarus recover --out RESTORED` rebuilt, on a new machine with
# WordPress's files (Debian: apt-get install wordpress), PHP and MariaDB
# or MySQL installed. Run it as root, so the files keep their owners.
#
#   resurrect-wordpress.sh RESTORED DOCROOT
#   resurrect-wordpress.sh --help      prints this
#
# RESTORED holds what the site preserved under these names (the Caddy
# module's `source /srv/www/wp-config.php config`, `source
# /srv/www/wp-content` and `dump db mariadb-dump ...`):
#   config/wp-config.php  (or wp-config.php)   the site's configuration
#                         (config, the file, from generations made
#                         before 2026-11-28)
#   wp-content/                                  uploads, plugins, themes kept
#   db                                           the database dump
# It then:
#   1. creates the database, its user and the user's grants that the
#      recovered wp-config.php names (DB_NAME, DB_USER, DB_PASSWORD,
#      DB_HOST), through $MYSQL as the database's administrator;
#   2. imports the dump into that database;
#   3. copies WordPress's files from $WP_CORE into DOCROOT, then the
#      recovered wp-config.php and wp-content over them (cp -a: modes,
#      times and owners as recover restored them).
# Serve DOCROOT at the site's old address (the database names it) with
# PHP, e.g. Caddy's php_fastcgi. Themes and plugins left out of the
# backup because a package reinstalls them come from $WP_CORE.
#
# Environment:
#   MYSQL    the client command as the database's administrator; default "mariadb"
#   WP_CORE  WordPress's files; default /usr/share/wordpress
#
# Exit status: 0 done; 1 a step failed (its error is printed); 2 usage.
set -eu

case ${1-} in
-h | --help)
	sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"
	exit 0
	;;
esac
if [ "$#" -ne 2 ]; then
	echo "usage: $0 RESTORED DOCROOT (--help says more)" >&2
	exit 2
fi
RESTORED=$1
DOCROOT=$2
MYSQL=${MYSQL:-mariadb}
WP_CORE=${WP_CORE:-/usr/share/wordpress}

if [ ! -d "$RESTORED" ]; then
	echo "$0: $RESTORED is not a directory: give the --out of lazarus recover" >&2
	exit 1
fi
# config/wp-config.php, or config itself from a generation made before
# single files kept their names (2026-11-28), or wp-config.php.
CONFIG=
for c in "$RESTORED/config/wp-config.php" "$RESTORED/config" "$RESTORED/wp-config.php"; do
	if [ -f "$c" ]; then
		CONFIG=$c
		break
	fi
done
if [ -z "$CONFIG" ]; then
	echo "$0: no wp-config.php in $RESTORED (config/wp-config.php, config or wp-config.php)" >&2
	exit 1
fi
for need in "$RESTORED/db" "$RESTORED/wp-content" "$WP_CORE/wp-settings.php"; do
	if [ ! -e "$need" ]; then
		echo "$0: $need is missing" >&2
		exit 1
	fi
done
for tool in php "${MYSQL%% *}"; do
	if ! command -v "$tool" >/dev/null; then
		echo "$0: $tool is not installed (Debian: apt-get install php-cli mariadb-client)" >&2
		exit 1
	fi
done

# The SQL that makes the database, its user and grants, from the defines
# of wp-config.php, quoted by PHP (a password may hold any character). A
# user of a local server (localhost, 127.0.0.1, a socket) is
# 'USER'@'localhost'; of another host, 'USER'@'%'.
# shellcheck disable=SC2016 # PHP's variables, not the shell's
sql=$(php -r '
$src = file_get_contents($argv[1]);
$v = [];
foreach (["DB_NAME", "DB_USER", "DB_PASSWORD", "DB_HOST"] as $k) {
	if (!preg_match("/define\\(\\s*([\x27\"])" . $k . "\\1\\s*,\\s*([\x27\"])((?:\\\\.|(?!\\2).)*)\\2\\s*\\)/s", $src, $m)) {
		fwrite(STDERR, "$k is not defined with a literal in " . $argv[1] . "\n");
		exit(1);
	}
	$v[$k] = stripcslashes($m[3]);
}
$host = preg_replace("/:.*/", "", $v["DB_HOST"]);
$host = in_array($host, ["localhost", "127.0.0.1", "::1", ""]) ? "localhost" : "%";
$q = fn($s) => "\x27" . addslashes($s) . "\x27";
$db = "`" . str_replace("`", "``", $v["DB_NAME"]) . "`";
echo "CREATE DATABASE IF NOT EXISTS $db;\n";
echo "CREATE USER IF NOT EXISTS ", $q($v["DB_USER"]), "@", $q($host), " IDENTIFIED BY ", $q($v["DB_PASSWORD"]), ";\n";
echo "GRANT ALL PRIVILEGES ON $db.* TO ", $q($v["DB_USER"]), "@", $q($host), ";\n";
echo "-- database: ", $v["DB_NAME"], "\n";
' "$CONFIG")
db=$(printf '%s\n' "$sql" | sed -n 's/^-- database: //p')

echo "creating database $db, its user and grants (from $CONFIG)"
printf '%s\n' "$sql" | $MYSQL
echo "importing $RESTORED/db into $db"
$MYSQL "$db" <"$RESTORED/db"

echo "copying WordPress from $WP_CORE, then wp-config.php and wp-content, into $DOCROOT"
mkdir -p "$DOCROOT"
cp -a "$WP_CORE/." "$DOCROOT/"
rm -f "$DOCROOT/wp-config.php"
cp -a "$CONFIG" "$DOCROOT/wp-config.php"
mkdir -p "$DOCROOT/wp-content"
cp -a "$RESTORED/wp-content/." "$DOCROOT/wp-content/"
echo "done: serve $DOCROOT with PHP at the site's address"
