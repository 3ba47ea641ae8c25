#!/bin/sh
# Runs Codex CLI (codex exec) once against headergold's fake provider.
#
# Codex does not read OPENAI_BASE_URL: a model provider given on the
# command line points it at the fake provider's OpenAI base URL, with
# Responses streamed over HTTP (no WebSocket). Everything else a run
# could take from the machine is fixed or made new: a fresh HOME and
# working directory under $TMPDIR (removed on exit), and an environment
# of PATH plus what the header should depend on. What still varies from
# run to run (ids, the date, the temporary paths) is for the fixture's
# redact rules.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hg-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/home/.codex" "$tmp/work"
cd "$tmp/work"
env -i PATH="$PATH" HOME="$tmp/home" CODEX_HOME="$tmp/home/.codex" SHELL=/bin/bash TZ=UTC LANG=C.UTF-8 \
  OPENAI_API_KEY="$OPENAI_API_KEY" \
  "$here/node_modules/.bin/codex" exec --skip-git-repo-check \
  -c model_provider=headergold \
  -c "model_providers.headergold={name=\"headergold\",base_url=\"$OPENAI_BASE_URL\",wire_api=\"responses\",env_key=\"OPENAI_API_KEY\",supports_websockets=false}" \
  "$@"
