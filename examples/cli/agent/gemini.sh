#!/bin/sh
# Runs Gemini CLI (gemini -p) once against headergold's fake provider,
# which it finds in GOOGLE_GEMINI_BASE_URL.
#
# Gemini CLI wants an authentication method chosen in its settings and
# the working directory trusted; both are set in a fresh HOME and working
# directory under $TMPDIR (removed on exit), with an environment of PATH
# plus what the header should depend on. What still varies from run to
# run (the date, the temporary paths) is for the fixture's redact rules.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hg-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/home/.gemini" "$tmp/work"
printf '{"security":{"auth":{"selectedType":"gemini-api-key"}}}\n' >"$tmp/home/.gemini/settings.json"
cd "$tmp/work"
env -i PATH="$PATH" HOME="$tmp/home" SHELL=/bin/bash TZ=UTC LANG=C.UTF-8 GEMINI_CLI_TRUST_WORKSPACE=true \
  GEMINI_API_KEY="$GEMINI_API_KEY" GOOGLE_GEMINI_BASE_URL="$GOOGLE_GEMINI_BASE_URL" \
  "$here/node_modules/.bin/gemini" "$@"
