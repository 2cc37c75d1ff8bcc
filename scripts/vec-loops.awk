# vec-loops.awk - the loops of one function in a gcc loop-vectorizer dump, one line each.
#
#   awk -v fn=NAME [-v prefix='COLUMNS<TAB>'] -f scripts/vec-loops.awk OBJECT.vect
#
# OBJECT.vect is what `gcc -fdump-tree-vect-optimized-missed=OBJECT.vect` writes: a
# ";; Function NAME (...)" line opens each function, and the vectorizer's verdict on each
# loop is one line, "FILE:LINE:COL: optimized: loop vectorized using N byte vectors" or
# "FILE:LINE:COL: missed: couldn't vectorize loop", after the "missed: not vectorized:
# REASON" lines of that loop's analysis. (The same messages as -fopt-info-vec-optimized
# and -fopt-info-vec-missed, but each under the function it was compiled in, so a loop of
# an inlined helper is found under its caller.) A C++ name is matched by its last "::"
# part, a clone (NAME.part.0, NAME.constprop.0) as NAME.
#
# Prints, for each loop of function fn, in the dump's order (tab-separated, after prefix):
#   fn  FILE:LINE  vectorized  vector_bytes  reason
# vectorized: yes (every verdict on that loop says vectorized), no (none does) or partly
# (a loop gcc compiled more than once, e.g. inlined twice, vectorized in some copies);
# vector_bytes: the widest vector gcc names for it (its epilogue may use narrower ones),
# empty if none; reason: the first "not vectorized" reason gcc gave for it, without the
# statement it quotes, empty for a vectorized loop. A function in the dump whose loops
# all went before the vectorizer saw them gets one line with FILE:LINE "-", "no" and the
# reason "no loop reached the vectorizer".
# Exit status 0; 3 when fn is not in the dump: a wrong name, a dump of another object, or
# a function without loops (gcc leaves those out).

/^;; Function / {
	name = $3
	sub(/^.*::/, "", name)
	sub(/\..*$/, "", name)
	in_fn = (name == fn)
	if (in_fn)
		found = 1
	reason = ""
	next
}

!in_fn { next }

# FILE:LINE:COL: (optimized|missed): MESSAGE
match($0, /^[^ :][^:]*:[0-9]+:[0-9]+: (optimized|missed): /) {
	head = substr($0, 1, RLENGTH)
	msg = substr($0, RLENGTH + 1)
	split(head, part, ":")
	loc = part[1] ":" part[2]
	if (msg ~ /^loop vectorized using [0-9]+ byte vectors/) {
		verdict(loc, "yes")
		bytes = msg
		sub(/^loop vectorized using /, "", bytes)
		sub(/ .*$/, "", bytes)
		if (bytes + 0 > width[loc] + 0)
			width[loc] = bytes
	} else if (msg ~ /^couldn't vectorize loop/) {
		if (why[loc] == "")
			why[loc] = reason
		verdict(loc, "no")
	} else if (msg ~ /^ *not vectorized[:,] / && reason == "") {
		reason = msg
		sub(/^ *not vectorized[:,] /, "", reason)
		sub(/: .*$/, "", reason)
		sub(/ between .*$/, "", reason)
		sub(/ [^ ]*_[0-9]+( .*)?$/, "", reason) # a GIMPLE statement it quotes
		sub(/[.]$/, "", reason)
	}
}

# A verdict on the loop at loc: the first one places the loop in the output order.
function verdict(loc, v) {
	if (!(loc in state)) {
		order[++n_loops] = loc
		state[loc] = v
	} else if (state[loc] != v) {
		state[loc] = "partly"
	}
	reason = ""
}

END {
	if (!found) {
		printf "vec-loops.awk: function %s is not in %s (no such function, or it has no " \
		       "loop)\n", fn, FILENAME > "/dev/stderr"
		exit 3
	}
	if (n_loops == 0)
		printf "%s%s\t-\tno\t\tno loop reached the vectorizer\n", prefix, fn
	for (i = 1; i <= n_loops; i++) {
		loc = order[i]
		printf "%s%s\t%s\t%s\t%s\t%s\n", prefix, fn, loc, state[loc], width[loc],
		       state[loc] == "yes" ? "" : why[loc]
	}
}
