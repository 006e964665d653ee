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
#   LAZARUS_CAPTURE after: once inject succeeded, run
#                  `lazarus capture --config $LAZARUS_CONFIG`, the
#                  capture-and-confirm loop, for recipes whose SITE_DIR is
#                  the live site (cron, systemd); a deploy that copies the
#                  site elsewhere runs capture itself after copying
#
# Arguments are passed on to lazarus inject (e.g. --dry-run).
# Exit status is lazarus's: 0 done or unchanged, 1 error (nothing changed),
# 2 usage error, 130/143 stopped by a signal; with LAZARUS_CAPTURE=after,
# capture's when inject succeeded and capture failed (1: say, the archives
# could not be reached; the pages are written, and the next run asks
# again). capture's "not confirmed yet" (3) is not a failure: captures
# take minutes to hours to show, and the next run asks again.
set -eu
: "${LAZARUS:=lazarus}"
: "${LAZARUS_CONFIG:?set LAZARUS_CONFIG to your lazarus.toml}"
if [ -n "${SITE_DIR:-}" ]; then
	set -- --site "$SITE_DIR" "$@"
fi
set -- inject --config "$LAZARUS_CONFIG" "$@"

# run: lazarus inject, then capture if asked; the exit status is inject's,
# or capture's when it failed for another reason than "not yet". step
# names the command whose status it is.
step=inject
run() {
	"$LAZARUS" "$@" || return
	[ "${LAZARUS_CAPTURE:-}" = after ] || return 0
	step=capture
	c=0
	"$LAZARUS" capture --config "$LAZARUS_CONFIG" || c=$?
	[ "$c" -eq 3 ] || return "$c"
}

if [ -z "${LAZARUS_SYSLOG:-}" ]; then
	run "$@"
	exit
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
status=0
run "$@" >"$log" 2>&1 || status=$?
shown=
if ! logger -t "$LAZARUS_SYSLOG" <"$log"; then
	echo "inject-site.sh: logger failed; the run's output:" >&2
	cat "$log" >&2
	shown=1
fi
if [ "$status" -ne 0 ]; then
	if [ "$step" = capture ]; then
		echo "inject-site.sh: lazarus capture failed with exit status $status (config $LAZARUS_CONFIG); inject succeeded and the pages are written" >&2
	else
		echo "inject-site.sh: lazarus inject failed with exit status $status (config $LAZARUS_CONFIG)" >&2
	fi
	[ -n "$shown" ] || cat "$log" >&2
fi
exit "$status"
