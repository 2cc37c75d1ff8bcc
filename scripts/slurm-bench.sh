#!/usr/bin/env bash
# slurm-bench.sh N [MAKE_VARIABLE=VALUE ...] - make bench over a Slurm cluster: N shards as
# one job array (scripts/slurm-shard.sbatch, one node each, exclusive), then a merge job
# that runs when all of them succeeded (--dependency=afterok): make merge, which checks
# that the shards cover the sweep exactly once on one kind of machine and writes the
# report of the merged run (results/RUN_ID.csv, results/RUN_ID/).
#
# Run it from the repository's top directory, on a filesystem the nodes share. It builds
# first with $BUILD (default "make build"; -march=native: build where the binary will run,
# e.g. BUILD="srun -N1 make build" on a partition of one kind of node). The arguments after
# N go to make bench-run on every node (SWEEPS=sweeps/quick.txt for a quick try).
# Environment: SBATCH_ARGS, more sbatch options for every job (e.g. "--partition=bench
# --constraint=zen4": shards of different machines are refused by the merge); RUN_PREFIX
# (default bench-slurm): the run id is RUN_PREFIX<array job id>; WAIT=1 waits for the
# merge job and exits with its status. Prints the run id and the job ids.
set -euo pipefail
if [[ $# -lt 1 || ! $1 =~ ^[1-9][0-9]*$ ]]; then
	echo "usage: slurm-bench.sh N [MAKE_VARIABLE=VALUE ...] (N shards, N >= 1)" >&2
	exit 2
fi
n=$1
shift
command -v sbatch >/dev/null || { echo "slurm-bench.sh: no sbatch here (Slurm's client)" >&2; exit 2; }
mkdir -p results/slurm
${BUILD:-make --no-print-directory build}
read -r -a extra <<<"${SBATCH_ARGS:-}"
export RUN_PREFIX=${RUN_PREFIX:-bench-slurm}
array=$(sbatch --parsable "${extra[@]}" --array="1-$n" \
	--output="results/slurm/$RUN_PREFIX%A_%a.out" scripts/slurm-shard.sbatch "$@")
array=${array%%;*} # --parsable prints "jobid[;cluster]"
run_id=$RUN_PREFIX$array
echo "slurm-bench.sh: run $run_id: shards in job array $array (results/slurm/${run_id}_K.out)"
merge=(sbatch --parsable "${extra[@]}" --job-name=dodbench-merge --nodes=1 --ntasks=1
	--dependency="afterok:$array" --kill-on-invalid-dep=yes
	--output="results/slurm/${run_id}_merge.out" ${WAIT:+--wait}
	--wrap="make --no-print-directory merge RUN_ID=$run_id")
if [[ -n ${WAIT:-} ]]; then
	"${merge[@]}" >/dev/null
	echo "slurm-bench.sh: merged: results/$run_id.csv, report results/$run_id/"
else
	echo "slurm-bench.sh: merge job $("${merge[@]}") (results/slurm/${run_id}_merge.out)"
fi
