#!/bin/sh
# Shared by the deploy recipes: preserve the server side in a built static
# site. Configure with environment variables (or edit the defaults):
#
#   LAZARUS        the lazarus binary                (default: lazarus on PATH)
#   LAZARUS_CONFIG a lazarus.toml with site_url, key, include, dump…  (required)
#   SITE_DIR       the built site to rewrite        (default: from the config)
#
# Exit status is lazarus's: 0 done or unchanged, 1 error (nothing changed),
# 2 usage error.
set -eu
: "${LAZARUS:=lazarus}"
: "${LAZARUS_CONFIG:?set LAZARUS_CONFIG to your lazarus.toml}"
if [ -n "${SITE_DIR:-}" ]; then
	exec "$LAZARUS" inject --config "$LAZARUS_CONFIG" --site "$SITE_DIR"
fi
exec "$LAZARUS" inject --config "$LAZARUS_CONFIG"
