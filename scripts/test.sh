#!/usr/bin/env bash
# The test suite: `swift test` against SQLite and a throwaway PostgreSQL on 127.0.0.1, then the
# browser tests (pytest + Playwright driving /usr/bin/chromium) against the built server.
# In between, every fuzz harness runs over its corpus once (crashes found once stay regression
# tests) and schemathesis runs against every documented route on a real server.
# At the end (also after a failure) it prints how long each phase took and the slowest tests;
# the logs they are read from stay in .build/test-logs/.
#   scripts/test.sh all|swift|robustness|e2e
#   E2E_WORKERS=N   browser tests on N pytest-xdist workers (default 2, one per core; 0: in one process)
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
swift=${SWIFT:-swift}
workers=${E2E_WORKERS:-2}
logs=.build/test-logs

say() { printf '\033[1m==>\033[0m %s\n' "$*"; }

# MARK: - Phases and their times
timings=()
phase_name=""
phase_start=0
run_start=$SECONDS
end_phase() {
  [ -n "$phase_name" ] && timings+=("$(printf '%6ss  %s' "$((SECONDS - phase_start))" "$phase_name")")
  phase_name=""
}
phase() {  # phase NAME MESSAGE: ends the phase before, announces this one
  end_phase
  phase_name=$1
  phase_start=$SECONDS
  say "$2"
}
pgdir=""
finish() {
  local status=$?
  end_phase
  [ -n "$pgdir" ] && scripts/throwaway-postgres.sh stop "$pgdir"
  echo
  say "Time per phase$([ "$status" = 0 ] || echo " (stopped by a failure, exit $status)")"
  printf '%s\n' "${timings[@]}"
  printf '%6ss  %s\n' "$((SECONDS - run_start))" "in all"
  python3 scripts/slowest-tests.py --count 10 --swift "$logs/swift-test.log" --junit "$logs/e2e.xml" || true
  exit "$status"
}
trap finish EXIT
mkdir -p "$logs"
rm -f "$logs/swift-test.log" "$logs/e2e.xml"

phase build "Building (debug, with tests)"
$swift build --build-tests

if [ "$what" = all ] || [ "$what" = swift ]; then
  pgdir=$(mktemp -d /tmp/reverie-pg.XXXXXX)
  phase "Swift tests" "Starting a throwaway PostgreSQL"
  url=$(scripts/throwaway-postgres.sh start "$pgdir")
  say "Swift tests on SQLite and PostgreSQL ($url; output also in $logs/swift-test.log)"
  REVERIE_TEST_POSTGRES_URL="$url" $swift test --skip-build 2>&1 | tee "$logs/swift-test.log"
  scripts/throwaway-postgres.sh stop "$pgdir"
  pgdir=""
fi

if [ "$what" = all ] || [ "$what" = robustness ]; then
  phase "fuzz replay" "Fuzz corpora, each input once (make fuzz runs the harnesses for longer)"
  scripts/fuzz.sh replay
  phase schemathesis "Robustness: schemathesis against /openapi.yaml on a real server"
  .venv/bin/python scripts/robustness.py --binary "$(pwd)/.build/debug/reverie"
fi

if [ "$what" = all ] || [ "$what" = e2e ]; then
  # Each test file on one worker (its server is per file), the files in conftest's order: those
  # that speak with the real Piper voice first, so they do not all land at the end.
  parallel=() how="in one process"
  [ "$workers" != 0 ] && parallel=(-n "$workers" --dist loadfile --no-loadscope-reorder) how="on $workers workers"
  phase "browser tests" "Browser tests $how (screenshots in e2e/artifacts/)"
  REVERIE_BINARY="$(pwd)/.build/debug/reverie" .venv/bin/python -m pytest e2e -q -p no:cacheprovider \
    "${parallel[@]}" --junitxml="$logs/e2e.xml" -o junit_family=xunit2
fi
