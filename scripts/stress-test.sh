#!/usr/bin/env bash
# Runs a test command beside busy-loop processes, as on a loaded machine: a test may not fail
# because the machine is slow. The busy loops (`node -e 'for(;;){}'`, two by default) start before
# the command and are killed when it ends (also on Ctrl-C); the exit status is the command's
# (the first failed run's, when run several times).
#
#   scripts/stress-test.sh [-n RUNS] [-b BUSY] -- COMMAND [ARGS...]
#     -n RUNS  run the command RUNS times in a row (default 1); the status is the first failed run's
#     -b BUSY  how many busy-loop processes (default 2)
#
# e.g. scripts/stress-test.sh -n 3 -- npm run test:e2e
#      scripts/stress-test.sh -- npx mocha test/integration/labels-cli.test.ts
set -uo pipefail

runs=1
busy=2
while getopts "n:b:" opt; do
  case "$opt" in
    n) runs="$OPTARG" ;;
    b) busy="$OPTARG" ;;
    *) echo "usage: $0 [-n RUNS] [-b BUSY] -- COMMAND [ARGS...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
if [ $# -eq 0 ]; then
  echo "usage: $0 [-n RUNS] [-b BUSY] -- COMMAND [ARGS...]" >&2
  exit 2
fi

pids=()
stop_busy() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  pids=()
}
trap 'stop_busy; exit 130' INT TERM
trap stop_busy EXIT

for _ in $(seq 1 "$busy"); do
  node -e 'for(;;){}' &
  pids+=("$!")
done
echo "[stress] $busy busy loops (pids ${pids[*]}); running $runs time(s): $*"

status=0
for i in $(seq 1 "$runs"); do
  t0=$(date +%s)
  "$@"
  rc=$?
  echo "[stress] run $i/$runs: exit $rc after $(( $(date +%s) - t0 )) s"
  [ "$status" -eq 0 ] && status=$rc
done
exit "$status"
