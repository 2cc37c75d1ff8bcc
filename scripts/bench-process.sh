#!/usr/bin/env bash
# bench-process.sh - whole-process timing with hyperfine, the cross-check of the in-process
# timer. `make bench-process` runs it after `make build`, then `make report`, whose process
# section reports the newest export of the run's host and revision.
#
# One process = one container's whole life cycle: hyperfine (-N: no shell, so no shell
# startup is timed) runs
#   dodbench run --container C --scenario lifecycle --n N --reps 1 --warmup 0 --quiet
#                --counters none --run-id process-<stamp>-<host> --out <dir>/process-<stamp>.csv
# over -L container (the four below) and -L n, with --warmup then --runs processes per
# command. Every process - warm-ups included - appends its one in-process row to the CSV,
# so the CSV holds warmup+runs rows per (container, n), in execution order. hyperfine's
# JSON keeps only the measured runs ("times"); reports/process.py treats the first
# (rows - len(times)) rows of each (container, n) as the warm-ups and drops them, so the
# in-process median and hyperfine's median cover the very same processes. No --prepare
# is needed (nothing has to be reset between processes).
# A second hyperfine call times the startup baseline `dodbench list containers`.
#
# Outputs (UTC stamp, e.g. 20261122T001500Z):
#   $RESULTS_DIR/process-<stamp>.json          hyperfine --export-json, lifecycle commands
#   $RESULTS_DIR/process-<stamp>.startup.json  hyperfine --export-json, startup baseline
#   $RESULTS_DIR/process-<stamp>.csv           dodbench rows (schema v1), run_id above
#   (no tracked file: reports/process.py prints its table; with RESULTS_MD set it also
#    updates that file's "process" section)
#
# Settings (environment variables):
#   PROCESS_RUNS=30               measured processes per command (hyperfine --runs)
#   PROCESS_WARMUP=3              warm-up processes per command (hyperfine --warmup)
#   PROCESS_N=100000,1000000      comma-separated sizes (hyperfine -L n)
#   PROCESS_CONTAINERS=handle_map,plain_array,peer_malloc_ptrs,peer_unordered_map
#   DODBENCH=build/dodbench       the harness binary (built by `make build`)
#   RESULTS_DIR=results           where the JSON and CSV files go
#   RESULTS_MD=                   a file whose process section is regenerated (default: none)
#   PYTHON=/usr/bin/python3       interpreter for reports/process.py
# Relative paths are relative to the repository root. Defaults take ~15 s on a 2-core VM.
set -euo pipefail
cd "$(dirname "$0")/.."

PROCESS_RUNS=${PROCESS_RUNS:-30}
PROCESS_WARMUP=${PROCESS_WARMUP:-3}
PROCESS_N=${PROCESS_N:-100000,1000000}
PROCESS_CONTAINERS=${PROCESS_CONTAINERS:-handle_map,plain_array,peer_malloc_ptrs,peer_unordered_map}
DODBENCH=${DODBENCH:-build/dodbench}
RESULTS_DIR=${RESULTS_DIR:-results}
RESULTS_MD=${RESULTS_MD:-}
PYTHON=${PYTHON:-/usr/bin/python3}

die() { echo "bench-process.sh: $*" >&2; exit 2; }

command -v hyperfine >/dev/null 2>&1 ||
	die "hyperfine not found; install it with 'apt-get install hyperfine' (or 'make deps')"
[[ -f $DODBENCH && -x $DODBENCH ]] ||
	die "$DODBENCH not found or not executable; run 'make build' first (or set DODBENCH)"
[[ -x $PYTHON ]] || die "$PYTHON not found (Debian's python3 with matplotlib is expected)"
[[ $PROCESS_RUNS =~ ^[1-9][0-9]*$ ]] || die "PROCESS_RUNS='$PROCESS_RUNS' is not an integer >= 1"
[[ $PROCESS_WARMUP =~ ^[0-9]+$ ]] || die "PROCESS_WARMUP='$PROCESS_WARMUP' is not an integer >= 0"
[[ $PROCESS_N =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] ||
	die "PROCESS_N='$PROCESS_N' is not a comma-separated list of positive integers"
[[ $PROCESS_CONTAINERS =~ ^[A-Za-z0-9_]+(,[A-Za-z0-9_]+)*$ ]] ||
	die "PROCESS_CONTAINERS='$PROCESS_CONTAINERS' is not a comma-separated list of names"
# Let dodbench reject unknown containers or too large n (exit 2) before hyperfine starts.
IFS=, read -r -a names <<<"$PROCESS_CONTAINERS"
known=$("$DODBENCH" list containers --names) || die "'$DODBENCH list containers --names' failed"
for c in "${names[@]}"; do
	grep -qx -- "$c" <<<"$known" || die "unknown container '$c'; valid: $(paste -sd, <<<"$known")"
done

mkdir -p "$RESULTS_DIR"
host=$(hostname | tr -c 'A-Za-z0-9._\n-' _)
while :; do  # a fresh stamp: never append to an earlier run's files
	stamp=$(date -u +%Y%m%dT%H%M%SZ)
	base=$RESULTS_DIR/process-$stamp
	[[ -e $base.json || -e $base.csv || -e $base.startup.json ]] || break
	sleep 1
done
run_id=process-$stamp-$host
run_id=${run_id:0:100}  # dodbench's --run-id limit
json=$base.json csv=$base.csv startup=$base.startup.json

# -N splits the command into words itself; %q keeps paths with spaces one word.
bin=$(printf %q "$DODBENCH")
out=$(printf %q "$csv")
start=${EPOCHREALTIME/,/.}

echo "== startup baseline: $DODBENCH list containers"
hyperfine -N --warmup "$PROCESS_WARMUP" --runs "$PROCESS_RUNS" --export-json "$startup" \
	"$bin list containers"

echo "== lifecycle per process: containers $PROCESS_CONTAINERS, n $PROCESS_N," \
	"$PROCESS_WARMUP warm-ups + $PROCESS_RUNS runs each, run_id $run_id"
hyperfine -N --warmup "$PROCESS_WARMUP" --runs "$PROCESS_RUNS" --export-json "$json" \
	-L container "$PROCESS_CONTAINERS" -L n "$PROCESS_N" \
	"$bin run --container {container} --scenario lifecycle --n {n} --reps 1 --warmup 0 --quiet --counters none --run-id $run_id --out $out"

echo "== report"
"$PYTHON" reports/process.py "$json" "$csv" --baseline "$startup" \
	${RESULTS_MD:+--results-md "$RESULTS_MD"}
echo "files: $json $startup $csv"
awk -v a="$start" -v b="${EPOCHREALTIME/,/.}" 'BEGIN { printf "bench-process.sh: done in %.1f s\n", b - a }'
