#!/bin/sh
# Runs Gemini CLI (gemini -p) once against headergold's fake provider,
# which it finds in GOOGLE_GEMINI_BASE_URL.
#
# Gemini CLI wants an authentication method chosen in its settings and
# the working directory trusted; its settings also turn off usage
# statistics and update checks, which would reach the network, and the
# search of parent directories for GEMINI.md files. Its system prompt
# lists its built-in skills in the order node-glob finds their SKILL.md
# files, which varies from run to run (antigravity-support and
# skill-creator swap places); with one of the two turned off, that list
# has one order. Everything a run could take from the machine is fixed
# or made new: a fresh HOME and working directory under $TMPDIR (removed
# on exit, also on the SIGTERM of a timeout), the working directory a
# git repository of its own, and an environment of PATH plus what the
# header should depend on (and the repeat pass's GOMAXPROCS and
# PYTHONHASHSEED). What still varies from run to run (the date, the
# temporary paths) is for the fixture's redact rules.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/fresh.sh"
mkdir -p "$tmp/home/.gemini"
cat >"$tmp/home/.gemini/settings.json" <<'SETTINGS'
{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
  "context": {"memoryBoundaryMarkers": []},
  "skills": {"disabled": ["antigravity-support"]}
}
SETTINGS
env -i PATH="$PATH" HOME="$tmp/home" SHELL=/bin/bash TZ=UTC LANG=C.UTF-8 GEMINI_CLI_TRUST_WORKSPACE=true \
  ${GOMAXPROCS:+GOMAXPROCS="$GOMAXPROCS"} ${PYTHONHASHSEED:+PYTHONHASHSEED="$PYTHONHASHSEED"} \
  GEMINI_API_KEY="$GEMINI_API_KEY" GOOGLE_GEMINI_BASE_URL="$GOOGLE_GEMINI_BASE_URL" \
  "$here/node_modules/.bin/gemini" "$@"
