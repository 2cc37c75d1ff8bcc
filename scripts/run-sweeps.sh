#!/usr/bin/env bash
# run-sweeps.sh SWEEP_FILE DODBENCH RUN_ID OUT.csv - run every sweep of a sweep file.
#
# A sweep file (sweeps/*.txt) holds one `dodbench run` per line: its options only, no
# quotes (globs such as bulk_* are passed as they are, never expanded by a shell); # starts
# a comment. Each line runs as
#     DODBENCH run --seed 1 --timeout S --run-id RUN_ID --out OUT.csv <line>
# (S: $SWEEP_TIMEOUT or 600; none on a --counters callgrind line, which refuses it),
# so every line of one file lands in one CSV under one run id. A line may give its own
# --seed or --timeout: then the script adds none (dodbench refuses an option given twice;
# --run-id and --out are the script's). A failing line is reported and the others still run; the exit status is that of
# the last failing line (1 a case failed, 2 a bad line), else 0.
#
# SWEEP_EXTRA in the environment: options added to every line (make hosts-example: the
# callgrind counters and a simulated cache hierarchy).
#
# SHARD=K/N in the environment runs shard K of N of every line (dodbench run --shard K/N:
# whole cases, chosen by their names; a manifest OUT.plan.tsv beside OUT.csv lists the
# whole plan for reports/merge_shards.py).
#
# The terminal gets one line per sweep and dodbench's progress (--progress, even for the
# --quiet lines); the per-case summaries (stdout: thousands of lines for make bench) go to
# the log OUT.log (OUT.csv's name with .log), with each sweep's header line before them and
# "   done in S s" after them when it succeeded.
#
# Overall time left: after each line, the estimate of scripts/sweep_eta.py (run with
# $PYTHON, default /usr/bin/python3): per line the seconds it took in this machine's latest
# earlier run that ran it (the other logs beside OUT.log), else in the reference timings
# beside the sweep file (sweeps/NAME.times.tsv), scaled by how the lines done so far
# compared with their estimates. The first line printed says what it is based on. Without
# Python, no estimate; the sweeps run all the same.
set -uo pipefail
if [[ $# -ne 4 ]]; then
	echo "usage: run-sweeps.sh SWEEP_FILE DODBENCH RUN_ID OUT.csv" >&2
	exit 2
fi
file=$1 bin=$2 run_id=$3 out=$4 log=${4%.csv}.log
[[ -r $file ]] || { echo "run-sweeps.sh: cannot read $file" >&2; exit 2; }
[[ -x $bin ]] || { echo "run-sweeps.sh: $bin is not built (make build)" >&2; exit 2; }

lines=()
while IFS= read -r line || [[ -n $line ]]; do
	line=${line%%#*}
	[[ $line =~ [^[:space:]] ]] && lines+=("$line")
done <"$file"
[[ ${#lines[@]} -gt 0 ]] || { echo "run-sweeps.sh: $file has no sweep lines" >&2; exit 2; }

status=0 start=$SECONDS
: >>"$log" || { echo "run-sweeps.sh: cannot write $log" >&2; exit 2; }
# The plan: what the estimate is based on, then each line's expected seconds ("-": none).
eta=$(dirname "${BASH_SOURCE[0]}")/sweep_eta.py
plan=()
mapfile -t plan < <("${PYTHON:-/usr/bin/python3}" "$eta" plan "$file" "$log" 2>/dev/null)
if [[ ${#plan[@]} -eq $((${#lines[@]} + 1)) ]]; then
	echo "run-sweeps.sh: ${#lines[@]} sweeps of $file; time left: ${plan[0]}" >&2
else
	plan=()
fi
took=() # seconds each line took, tenths
for i in "${!lines[@]}"; do
	read -r -a args <<<"${lines[$i]} ${SWEEP_EXTRA:-}"
	head="== sweep $((i + 1))/${#lines[@]} ($file): ${lines[$i]}"
	echo "$head" >&2
	echo "$head" >>"$log"
	# --timeout per case, except under callgrind, whose cases share one valgrind process;
	# the seed and the timeout unless the line gives its own
	seed=(--seed 1) timeout=(--timeout "${SWEEP_TIMEOUT:-600}")
	[[ " ${args[*]} " =~ \ --counters(\ |=)callgrind\  ]] && timeout=()
	[[ " ${args[*]} " =~ \ --seed(\ |=) ]] && seed=()
	[[ " ${args[*]} " =~ \ --timeout(\ |=) ]] && timeout=()
	set -f # no pathname expansion of globs in the arguments
	t0=${EPOCHREALTIME//[!0-9]/} # microseconds (any locale's decimal point)
	"$bin" run "${seed[@]}" "${timeout[@]}" ${SHARD:+--shard "$SHARD"} --run-id "$run_id" --out "$out" --progress \
		"${args[@]}" >>"$log"
	rc=$?
	set +f
	now=${EPOCHREALTIME//[!0-9]/}
	tenths=$(((now - t0 + 50000) / 100000))
	secs=$((tenths / 10)).$((tenths % 10))
	took+=("$secs")
	left=
	if [[ ${#plan[@]} -gt 0 && $((i + 1)) -lt ${#lines[@]} ]]; then
		left=$("${PYTHON:-/usr/bin/python3}" "$eta" left "${plan[@]:1}" -- "${took[@]}" 2>/dev/null)
	fi
	if [[ $rc -ne 0 ]]; then
		echo "run-sweeps.sh: sweep $((i + 1)) of $file exited $rc after $secs s (its cases:" \
			"$log)${left:+; $left}" >&2
		status=$rc
	else
		echo "   done in $secs s" >>"$log"
		echo "   sweep $((i + 1))/${#lines[@]} done in $(((tenths + 5) / 10)) s${left:+; $left}" >&2
	fi
done
echo "== $file: ${#lines[@]} sweeps in $((SECONDS - start)) s -> $out (run $run_id); per-case" \
	"summaries in $log" >&2
exit $status
