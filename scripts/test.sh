#!/usr/bin/env bash
# The test suite: `swift test` against SQLite and a throwaway PostgreSQL on 127.0.0.1, then the
# browser tests (pytest + Playwright driving /usr/bin/chromium) against the built server.
# In between, every fuzz harness runs over its corpus once (crashes found once stay regression
# tests) and schemathesis runs against every documented route on a real server.
#   scripts/test.sh all|swift|robustness|e2e
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
swift=${SWIFT:-swift}

say() { printf '\033[1m==>\033[0m %s\n' "$*"; }

say "Building (debug, with tests)"
$swift build --build-tests

if [ "$what" = all ] || [ "$what" = swift ]; then
  pgdir=$(mktemp -d /tmp/reverie-pg.XXXXXX)
  trap 'scripts/throwaway-postgres.sh stop "$pgdir"' EXIT
  say "Starting a throwaway PostgreSQL"
  url=$(scripts/throwaway-postgres.sh start "$pgdir")
  say "Swift tests on SQLite and PostgreSQL ($url)"
  REVERIE_TEST_POSTGRES_URL="$url" $swift test --skip-build
  scripts/throwaway-postgres.sh stop "$pgdir"
  trap - EXIT
fi

if [ "$what" = all ] || [ "$what" = robustness ]; then
  say "Fuzz corpora, each input once (make fuzz runs the harnesses for longer)"
  scripts/fuzz.sh replay
  say "Robustness: schemathesis against /openapi.yaml on a real server"
  .venv/bin/python scripts/robustness.py --binary "$(pwd)/.build/debug/reverie"
fi

if [ "$what" = all ] || [ "$what" = e2e ]; then
  say "Browser tests (screenshots in e2e/artifacts/)"
  REVERIE_BINARY="$(pwd)/.build/debug/reverie" .venv/bin/python -m pytest e2e -q -p no:cacheprovider
fi
