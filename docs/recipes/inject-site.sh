#!/bin/sh
# Shared by the deploy recipes: preserve the server side in a built static
# site. The crontab and the systemd unit run it from /usr/local/share/lazarus;
# install it there (from a checkout of the lazarus repository):
#
#   sudo install -D -m 755 docs/recipes/inject-site.sh /usr/local/share/lazarus/inject-site.sh
#
# (the git hook runs the copy beside it in the repository's hooks/).
# Configure with environment variables:
#
#   LAZARUS_CONFIG a lazarus.toml (see lazarus.toml beside this file)  (required)
#   SITE_DIR       the built site to rewrite        (default: site in the config)
#   LAZARUS        the lazarus binary                (default: lazarus on PATH)
#   LAZARUS_SYSLOG a syslog tag: send the run's output to syslog (logger -t),
#                  and print it on stderr too when the run fails, so that
#                  cron mails failures and nothing else
#
# Arguments are passed on to lazarus inject (e.g. --dry-run).
# Exit status is lazarus's: 0 done or unchanged, 1 error (nothing changed),
# 2 usage error, 130/143 stopped by a signal.
set -eu
: "${LAZARUS:=lazarus}"
: "${LAZARUS_CONFIG:?set LAZARUS_CONFIG to your lazarus.toml}"
if [ -n "${SITE_DIR:-}" ]; then
	set -- --site "$SITE_DIR" "$@"
fi
set -- inject --config "$LAZARUS_CONFIG" "$@"
if [ -z "${LAZARUS_SYSLOG:-}" ]; then
	exec "$LAZARUS" "$@"
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
status=0
"$LAZARUS" "$@" >"$log" 2>&1 || status=$?
shown=
if ! logger -t "$LAZARUS_SYSLOG" <"$log"; then
	echo "inject-site.sh: logger failed; the run's output:" >&2
	cat "$log" >&2
	shown=1
fi
if [ "$status" -ne 0 ]; then
	echo "inject-site.sh: lazarus inject failed with exit status $status (config $LAZARUS_CONFIG)" >&2
	[ -n "$shown" ] || cat "$log" >&2
fi
exit "$status"
