#!/bin/sh
# resurrect-mediawiki.sh: bring a MediaWiki wiki back up from what
# `lazarus recover --out RESTORED` rebuilt, on a new machine with
# MediaWiki's files (Debian: apt-get install mediawiki), PHP and MariaDB
# or MySQL installed. Run it as root, so the files keep their owners.
#
#   resurrect-mediawiki.sh RESTORED DOCROOT
#   resurrect-mediawiki.sh --help      prints this
#
# RESTORED holds what the wiki preserved under these names (the Caddy
# module's `source /srv/wiki/LocalSettings.php config`, `source
# /srv/wiki/images` and `dump db mariadb-dump ...`):
#   config/LocalSettings.php  (or LocalSettings.php)   the wiki's configuration
#   images/                                             the uploaded files
#   db                                                  the database dump
# It then:
#   1. creates the database, its user and the user's grants that the
#      recovered LocalSettings.php names ($wgDBname, $wgDBuser,
#      $wgDBpassword, $wgDBserver), through $MYSQL as the database's
#      administrator;
#   2. imports the dump into that database;
#   3. copies MediaWiki's files from $MW_CORE into DOCROOT, then the
#      recovered LocalSettings.php and images over them, in place of
#      Debian's links to /var/lib/mediawiki (cp -a: modes, times and
#      owners as recover restored them).
# Serve DOCROOT at the wiki's old address ($wgServer names it) with PHP,
# e.g. Caddy's php_fastcgi. It refuses, before changing anything: a
# wiki whose $wgDBtype is not mysql (SQLite, PostgreSQL), an empty
# $wgDBuser, a database on another host, and a DOCROOT that holds a wiki
# already (give a new directory, not Debian's /var/lib/mediawiki).
# Not restored: extensions and skins other than Debian's packaged ones
# (they come from $MW_CORE; install the others before serving), config
# files beside LocalSettings.php, a logo outside images/, robots.txt.
# If the new machine's MediaWiki is newer than the lost one's, run
# `php maintenance/update.php --quick` in DOCROOT as www-data before
# serving. Without root, or where the old owner names do not exist,
# give images/ to the web server: chown -R www-data: DOCROOT/images.
#
# Environment:
#   MYSQL    the client command as the database's administrator; default "mariadb"
#   MW_CORE  MediaWiki's files; default /usr/share/mediawiki
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
MW_CORE=${MW_CORE:-/usr/share/mediawiki}

if [ ! -d "$RESTORED" ]; then
	echo "$0: $RESTORED is not a directory: give the --out of lazarus recover" >&2
	exit 1
fi
CONFIG=
for c in "$RESTORED/config/LocalSettings.php" "$RESTORED/LocalSettings.php"; do
	if [ -f "$c" ]; then
		CONFIG=$c
		break
	fi
done
if [ -z "$CONFIG" ]; then
	echo "$0: no LocalSettings.php in $RESTORED (config/LocalSettings.php or LocalSettings.php)" >&2
	exit 1
fi
for need in "$RESTORED/db" "$RESTORED/images" "$MW_CORE/includes/WebStart.php"; do
	if [ ! -e "$need" ]; then
		echo "$0: $need is missing" >&2
		exit 1
	fi
done
if [ -e "$DOCROOT/LocalSettings.php" ] || [ -e "$DOCROOT/includes" ] || { [ -d "$DOCROOT/images" ] && [ ! -L "$DOCROOT/images" ]; }; then
	echo "$0: $DOCROOT holds a wiki already (LocalSettings.php, includes/ or images/): give a new directory, such as /srv/wiki (not Debian's /var/lib/mediawiki)" >&2
	exit 1
fi
for tool in php "${MYSQL%% *}"; do
	if ! command -v "$tool" >/dev/null; then
		echo "$0: $tool is not installed (Debian: apt-get install php-cli mariadb-client)" >&2
		exit 1
	fi
done

# The SQL that makes the database, its user and grants, from the
# assignments of LocalSettings.php, each a string literal read by PHP's
# own tokenizer (install.php writes them double-quoted, with escapes; a
# password may hold any character). A user of a local server
# (localhost, 127.0.0.1, a socket) is 'USER'@'localhost'; of another
# host, 'USER'@'%'.
# shellcheck disable=SC2016 # PHP's variables, not the shell's
sql=$(php -r '
$want = ["wgDBtype", "wgDBname", "wgDBuser", "wgDBpassword", "wgDBserver"];
$v = [];
$tokens = array_values(array_filter(token_get_all(file_get_contents($argv[1])),
	fn($t) => !is_array($t) || !in_array($t[0], [T_WHITESPACE, T_COMMENT, T_DOC_COMMENT])));
foreach ($tokens as $i => $t) {
	if (is_array($t) && $t[0] === T_VARIABLE && in_array(substr($t[1], 1), $want)
		&& ($tokens[$i + 1] ?? null) === "=" && is_array($tokens[$i + 2] ?? null)
		&& $tokens[$i + 2][0] === T_CONSTANT_ENCAPSED_STRING && ($tokens[$i + 3] ?? null) === ";") {
		$v[substr($t[1], 1)] = eval("return " . $tokens[$i + 2][1] . ";");
	}
}
foreach ($want as $k) {
	if (!isset($v[$k])) {
		fwrite(STDERR, "\$$k is not set to a string literal in " . $argv[1] . "\n");
		exit(1);
	}
}
if ($v["wgDBtype"] !== "mysql") {
	fwrite(STDERR, "\$wgDBtype is \"" . $v["wgDBtype"] . "\" in " . $argv[1] . ": this script brings back MySQL/MariaDB wikis only\n");
	exit(1);
}
if ($v["wgDBuser"] === "" || $v["wgDBname"] === "") {
	fwrite(STDERR, "\$wgDBuser or \$wgDBname is empty in " . $argv[1] . ": refusing to create an anonymous database user\n");
	exit(1);
}
$host = preg_replace("/:.*/", "", $v["wgDBserver"]);
if (!in_array($host, ["localhost", "127.0.0.1", "::1", ""])) {
	fwrite(STDERR, "\$wgDBserver is \"" . $v["wgDBserver"] . "\" in " . $argv[1] . ": the database is on another host; create the database and user there, or set \$wgDBserver = \"localhost\" in the recovered LocalSettings.php\n");
	exit(1);
}
$host = "localhost";
$q = fn($s) => "\x27" . addslashes($s) . "\x27";
$db = "`" . str_replace("`", "``", $v["wgDBname"]) . "`";
echo "CREATE DATABASE IF NOT EXISTS $db;\n";
echo "CREATE USER IF NOT EXISTS ", $q($v["wgDBuser"]), "@", $q($host), " IDENTIFIED BY ", $q($v["wgDBpassword"]), ";\n";
echo "GRANT ALL PRIVILEGES ON $db.* TO ", $q($v["wgDBuser"]), "@", $q($host), ";\n";
echo "-- database: ", $v["wgDBname"], "\n";
' "$CONFIG")
db=$(printf '%s\n' "$sql" | sed -n 's/^-- database: //p')

echo "creating database $db, its user and grants (from $CONFIG)"
printf '%s\n' "$sql" | $MYSQL
echo "importing $RESTORED/db into $db"
$MYSQL "$db" <"$RESTORED/db"

echo "copying MediaWiki from $MW_CORE, then LocalSettings.php and images, into $DOCROOT"
mkdir -p "$DOCROOT"
cp -a "$MW_CORE/." "$DOCROOT/"
# Debian's package links these into /var/lib/mediawiki: the wiki's own
# take their place.
rm -f "$DOCROOT/LocalSettings.php"
cp -a "$CONFIG" "$DOCROOT/LocalSettings.php"
if [ -L "$DOCROOT/images" ]; then
	rm "$DOCROOT/images"
fi
mkdir -p "$DOCROOT/images"
cp -a "$RESTORED/images/." "$DOCROOT/images/"
echo "done: serve $DOCROOT with PHP at the wiki's address"
