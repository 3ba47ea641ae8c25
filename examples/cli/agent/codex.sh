#!/bin/sh
# Runs Codex CLI (codex exec) once against headergold's fake provider.
#
# Codex does not read OPENAI_BASE_URL: a model provider given on the
# command line points it at the fake provider's OpenAI base URL, with
# Responses streamed over HTTP (no WebSocket). What else it would reach
# over the network (analytics, update checks, apps, plugins) is turned
# off, and so are project instruction files (AGENTS.md). Everything a
# run could take from the machine is fixed or made new: a fresh HOME and
# working directory under $TMPDIR (removed on exit, also on the SIGTERM
# of a timeout), the working directory a git repository of its own,
# and an environment of PATH plus what the header should depend on (and
# the repeat pass's GOMAXPROCS and PYTHONHASHSEED). What still varies
# from run to run or host to host (ids, the date, the temporary paths,
# the login shell, which Codex reads from the user database) is for the
# fixture's redact rules.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/fresh.sh"
mkdir -p "$tmp/home/.codex"
env -i PATH="$PATH" HOME="$tmp/home" CODEX_HOME="$tmp/home/.codex" SHELL=/bin/bash TZ=UTC LANG=C.UTF-8 \
  ${GOMAXPROCS:+GOMAXPROCS="$GOMAXPROCS"} ${PYTHONHASHSEED:+PYTHONHASHSEED="$PYTHONHASHSEED"} \
  OPENAI_API_KEY="$OPENAI_API_KEY" \
  "$here/node_modules/.bin/codex" exec --skip-git-repo-check \
  -c model_provider=headergold \
  -c "model_providers.headergold={name=\"headergold\",base_url=\"$OPENAI_BASE_URL\",wire_api=\"responses\",env_key=\"OPENAI_API_KEY\",supports_websockets=false}" \
  -c analytics.enabled=false -c check_for_update_on_startup=false \
  -c features.apps=false -c features.plugins=false -c features.remote_plugin=false -c features.in_app_updates=false \
  -c project_doc_max_bytes=0 \
  "$@"
