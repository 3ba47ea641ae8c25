# Sourced by the wrappers, after they set $here: one run's fresh HOME
# ($tmp/home) and working directory ($tmp/work, the current directory
# afterwards) under $TMPDIR, removed when the wrapper exits, also on the
# SIGTERM that a timeout sends first (only a SIGKILL leaves them). The
# working directory is a git repository of its own, so that a CLI takes
# no instructions and no idea of the project from a checkout that
# $TMPDIR happens to be in.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hg-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 143' HUP INT TERM
mkdir -p "$tmp/home"
HOME="$tmp/home" GIT_CONFIG_NOSYSTEM=1 git init -q -b main "$tmp/work"
cd "$tmp/work"
