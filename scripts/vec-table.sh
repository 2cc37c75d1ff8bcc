#!/usr/bin/env bash
# vec-table.sh TABLE OBJDIR OUT [SCENARIO ...] - the vectorization table: for every timed
# loop dodbench compiles, whether gcc vectorized it, from gcc's own report.
#
# TABLE is the variant table (containers/variants.tsv); OBJDIR the object tree whose
# objects were compiled with -fdump-tree-vect-optimized-missed=OBJECT.vect (build/rel: the
# Makefile's VECT_rel). The loops are found by function, in each object's dump
# (scripts/vec-loops.awk):
#   - every variant at every size class: the function its ops table (`const struct
#     dod_ops`, containers/contract.h) names for iterate_sum, timed by scenario iterate,
#     and those its particle kernel table names for tick, simulate and update (scenarios
#     tick, simulate, and update and update8: one function), and the one its tags table
#     (containers/aoa_contract.h) names for walk_sum (scenario tags_walk), in
#     OBJDIR/v/NAME.SIZE.o.vect;
#   - each SCENARIO (the Makefile's VEC_HAND_LOOPS): the hand-written loop of its pass(),
#     which runs over plain_array's 8-byte keys, in OBJDIR/scenarios/SCENARIO.o.vect.
# OUT gets a header and one line per loop, tab-separated:
#   container  elem_bytes  scenario  function  loop  vectorized  vector_bytes  reason
# (loop is FILE:LINE; vectorized yes, no or partly; vector_bytes the widest vector gcc
# used; reason gcc's first "not vectorized" reason: see vec-loops.awk). (container,
# scenario, elem_bytes) are the columns of the CSV rows that time the loop. Prints one
# summary line: the (container, scenario) pairs none of whose loops is a vector loop (at
# the size classes after @ when not at all of them).
# Exit status 0; 1 when a dump is missing or lacks a function (OUT is then not written).
set -euo pipefail
if [[ $# -lt 3 ]]; then
	echo "usage: vec-table.sh TABLE OBJDIR OUT [SCENARIO ...]" >&2
	exit 2
fi
table=$1 objdir=$2 out=$3
incdir=$(dirname "$table")
shift 3
here=$(dirname "$0")
tmp=$out.tmp-$$
trap 'rm -f "$tmp"' EXIT

# loops PREFIX FUNCTION DUMP: the loop lines of FUNCTION in DUMP, after PREFIX.
loops() {
	[[ -r $3 ]] || { echo "vec-table.sh: $3 is missing (rebuild: make clean build)" >&2; exit 1; }
	awk -v prefix="$1" -v fn="$2" -f "$here/vec-loops.awk" "$3" || exit 1
}

# sources FILE: FILE and, depth first, every file it includes ("NAME", found beside the
# including file or, as the compiler's -Icontainers finds it, in the variant table's
# directory), each once; a file the build generates (build/gen) is not found and skipped.
sources() {
	local -A seen=()
	local stack=("$1") f inc g k
	while ((${#stack[@]})); do
		f=${stack[-1]}
		unset 'stack[-1]'
		[[ -n ${seen[$f]:-} ]] && continue
		seen[$f]=1
		echo "$f"
		local incs=()
		for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
			for g in "${f%/*}/$inc" "$incdir/$inc"; do
				if [[ -r $g ]]; then
					incs+=("$g")
					break
				fi
			done
		done
		for ((k = ${#incs[@]} - 1; k >= 0; k--)); do
			stack+=("${incs[k]}")
		done
	done
}

# ops_fields SOURCE: one line "FIELD NAME" for each timed field (iterate_sum, tick,
# simulate, update, walk_sum) a designated initializer ".FIELD = NAME" names, in SOURCE or
# a file it includes (sources): a variant that compiles another source again with a
# define, as handle_map_elementwise.c does handle_map.c, or whose ops table is a header's
# macro, as the aoa designs' AOA_CORE_OPS (aoa/aoa_core.h, which puts several initializers
# on one line, reached through aoa/vec_hooks.h by two of them). The first one found wins:
# SOURCE's own comes first. A handful of processes a source (forks are dear on a VM: one
# grep per variant and field took two minutes of the build).
ops_fields() {
	local files
	mapfile -t files < <(sources "$1")
	{ grep -ohE "(^|[[:space:]{,])\.(iterate_sum|tick|simulate|update|walk_sum)[[:space:]]*=[[:space:]]*[A-Za-z_][A-Za-z0-9_]*[[:space:]]*([,}\\]|$)" \
		"${files[@]}" || true; } |
		sed -E 's/^[^.]*\.([a-z_]+)[[:space:]]*=[[:space:]]*([A-Za-z_][A-Za-z0-9_]*).*/\1 \2/' |
		awk '!seen[$1]++'
}

# field_fn SOURCE FIELD: sets REPLY to the function ops_fields finds for FIELD, or to
# nothing; each SOURCE's fields are read once (several variants share a source), so it
# runs in this shell, not in a $(...) subshell.
declare -A field_of=() read_src=()
field_fn() {
	local f n
	if [[ -z ${read_src[$1]:-} ]]; then
		read_src[$1]=1
		while read -r f n; do
			field_of[$1:$f]=$n
		done < <(ops_fields "$1")
	fi
	REPLY=${field_of[$1:$2]:-}
}

printf 'container\telem_bytes\tscenario\tfunction\tloop\tvectorized\tvector_bytes\treason\n' >"$tmp"
while read -r name src _ _ _ _ _ sizes _; do
	for pair in iterate_sum:iterate tick:tick simulate:simulate update:update update:update8 \
	            walk_sum:tags_walk; do
		field_fn "$src" "${pair%%:*}"
		fn=$REPLY
		if [[ -z $fn ]]; then
			[[ $pair == iterate_sum:* ]] || continue
			echo "vec-table.sh: $src: no .iterate_sum = FUNCTION, in its ops table" >&2
			exit 1
		fi
		for size in ${sizes//,/ }; do
			loops "$name	$size	${pair#*:}	" "$fn" "$objdir/v/$name.$size.o.vect" >>"$tmp"
		done
	done
done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$table")
for scn in "$@"; do
	loops "plain_array	8	$scn	" pass "$objdir/scenarios/$scn.o.vect" >>"$tmp"
done

# The (container, scenario) pairs with no vector loop, with the size classes where that
# holds when it does not hold at all of them.
scalar=$(awk -F '\t' '
	NR == 1 { next }
	{ key = $1 "/" $3; case = key SUBSEP $2
	  if (!(key in n_size)) order[++n] = key
	  if (!(case in vec)) { vec[case] = 0; size[key, ++n_size[key]] = $2 }
	  if ($6 != "no") vec[case] = 1 }
	END {
		for (i = 1; i <= n; i++) {
			key = order[i]; list = ""; k = 0
			for (j = 1; j <= n_size[key]; j++)
				if (!vec[key, size[key, j]]) { list = list (k++ ? "," : "") size[key, j] }
			if (k == n_size[key]) printf " %s", key
			else if (k) printf " %s@%s", key, list
		}
	}' "$tmp")
mv "$tmp" "$out"
echo "vectorization ($out): no vector loop in${scalar:- none of them}"
