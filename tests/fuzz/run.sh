#!/usr/bin/env bash
# run.sh - runs the fuzz binary once per registered variant (make fuzz, make test).
#   tests/fuzz/run.sh BIN time SECONDS NAME...   each NAME for SECONDS of wall time
#   tests/fuzz/run.sh BIN runs N NAME...         each NAME for N inputs after its corpus
#                                                (fixed seed: the same inputs every time)
# Each NAME gets its own corpus directory build/fuzz/corpus/NAME (new inputs land there),
# read together with the committed seeds tests/fuzz/corpus/common and, when it exists,
# tests/fuzz/corpus/NAME (regression inputs of that variant). A crash or a model mismatch
# leaves its input in build/fuzz/artifacts/ and the log in build/fuzz/logs/NAME.log, prints
# the log's end and exits 1. Prints one line per NAME with its executions.
set -euo pipefail

bin=$1 mode=$2 budget=$3
shift 3
case $mode in
time) limit=(-max_total_time="$budget") ;;
runs) limit=(-runs="$budget" -seed=1) ;;
*) echo "run.sh: mode must be time or runs" >&2; exit 2 ;;
esac

mkdir -p build/fuzz/artifacts build/fuzz/logs
total=0
start=$SECONDS
for name in "$@"; do
	corpus=build/fuzz/corpus/$name
	mkdir -p "$corpus"
	seeds=(tests/fuzz/corpus/common)
	[[ -d tests/fuzz/corpus/$name ]] && seeds+=("tests/fuzz/corpus/$name")
	log=build/fuzz/logs/$name.log
	t0=$SECONDS
	if ! DODFUZZ_TARGET=$name "$bin" "${limit[@]}" -max_len=4096 -timeout=60 \
		-print_final_stats=1 -artifact_prefix="build/fuzz/artifacts/$name-" \
		"$corpus" "${seeds[@]}" >"$log" 2>&1; then
		tail -n 40 "$log" >&2
		echo "fuzz $name: FAILED (log: $log, input: build/fuzz/artifacts/$name-*)" >&2
		exit 1
	fi
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	if [[ -z $execs || $execs -eq 0 ]]; then
		tail -n 20 "$log" >&2
		echo "fuzz $name: no executions reported (log: $log)" >&2
		exit 1
	fi
	printf 'fuzz %-30s %9d executions in %3d s, corpus %d inputs\n' "$name" "$execs" \
		$((SECONDS - t0)) "$(find "$corpus" -type f | wc -l)"
	total=$((total + execs))
done
echo "fuzz: $# variants, $total executions in $((SECONDS - start)) s"
