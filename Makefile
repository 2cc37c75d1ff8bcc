# dodbench - see README.md. Targets users type: bench, test, report, build, deps, clean.

# ---- settings (override on the command line: make bench BENCH_REPS=21) ----
CC        ?= cc
CXX       ?= c++
PYTHON    := /usr/bin/python3
# -O3: every container and hand-written loop is vectorized where the compiler can (at -O2
# gcc 12 left plain_array's sum scalar but vectorized holes_bitmask's fixed 64-trip loop,
# so comparisons measured the compiler: build/rel/vectorization.tsv says which loops are
# vector loops). Loops aligned to 64 B: where a hot loop lands relative to cache lines
# must not decide a comparison (without it, adding the bulk variants moved plain_array's
# iterate loop and the calibration went from 1.00x to 1.06-1.13x of the same loop
# written inline).
OPT       ?= -O3 -march=native -falign-loops=64
WARN      := -Wall -Wextra -Wpedantic -Wshadow
CFLAGS_R  := -std=c11 $(OPT) -g $(WARN)
CXXFLAGS_R:= -std=c++20 $(OPT) -g -Wall -Wextra
# Flags of build/dodbench-sim, the binary --counters callgrind runs under valgrind: OPT's
# -O level and alignment, without AVX-512 (valgrind 3.19 cannot decode it).
OPT_SIM   ?= -O3 -march=native -mno-avx512f -falign-loops=64
SAN       := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# The size classes (payload bytes): the one list. The variant table's sizes column names
# some of them; the registry, --help and --elem-bytes take them from here (build/gen/sizes.h).
SIZES     := 4 8 16 40 64 256
BENCH_N   ?= 100000
BENCH_REPS?= 11
BENCH_WARMUP ?= 2
# The calibration (iterate/plain_array vs a hand-written loop) compares ~40 us regions:
# many repetitions make its 95% CI narrow enough to judge a 5% limit.
CALIBRATE_REPS ?= 61
# Extra sizes for the complexity fits (with BENCH_N they make four points per case).
SWEEP_N   ?= 1000,10000,1000000
# A 100k shuffled defragment is O(n^2) moves: seconds per repetition.
DEFRAG_REPS ?= 5
BENCH_STAMP := $(shell date -u +%Y%m%dT%H%M%SZ)
# Jobs a build runs at once (make -jN on the command line wins; see "Parallel builds").
JOBS      ?= $(shell nproc 2>/dev/null || echo 1)
BENCH_OUT ?= results/bench-$(BENCH_STAMP).csv
# make bench SHARD=K/N RUN_ID=ID: shard K of N of the sweeps (dodbench run --shard), into
# results/shards/ID/ (not a run make report finds on its own); `make merge RUN_ID=ID`
# checks the N shards and merges them into results/ID.csv, then reports it.
SHARD ?=
ifneq ($(SHARD),)
ifneq ($(origin RUN_ID),command line)
$(error make bench SHARD=$(SHARD) needs RUN_ID=ID on the command line, the same for every shard)
endif
# K/N as dodbench run --shard takes it, checked before the machine file and cache chase
ifeq ($(shell echo '$(SHARD)' | awk -F/ 'NF == 2 && $$1 ~ /^[0-9]+$$/ && $$2 ~ /^[0-9]+$$/ \
        && $$1 >= 1 && $$1 <= $$2 && $$2 <= 10000 { print "ok" }'),)
$(error make bench SHARD=$(SHARD): expected K/N with 1 <= K <= N <= 10000 (shard K of N))
endif
BENCH_OUT := results/shards/$(RUN_ID)/shard-$(subst /,-of-,$(SHARD)).csv
endif
# -------------------------------------------------------------------------

B := build
HAVE_PAPI := $(shell test -f /usr/include/papi.h && echo 1)
PAPI_DEF  := $(if $(HAVE_PAPI),-DHAVE_PAPI)
PAPI_LIB  := $(if $(HAVE_PAPI),-lpapi)
INC       := -Icontainers -Iharness -Iscenarios -I$(B) -I$(B)/gen

# Container variants come from the variant table (containers/variants.tsv): the generated
# build/gen/variants.mk lists VARIANTS, VARIANT_OBJS and one object rule per variant and
# size class; a new variant is one line there, no edit here. Scenarios and tests are found
# by wildcard: a new scenario is one file, a new test one file. stb_ds_impl.c is stb_ds's
# implementation, which must be compiled once, not once per size class like its user.
VARIANT_TABLE := containers/variants.tsv
include $(B)/gen/variants.mk
PLAIN_C   := containers/dod_common.c $(sort $(wildcard containers/alloc/*.c)) \
             containers/peers/stb_ds_impl.c \
             $(filter-out harness/main.c harness/alloc_count.c,$(sort $(wildcard harness/*.c))) \
             $(sort $(wildcard scenarios/*.c))
TEST_NAMES:= $(patsubst tests/%.c,%,$(sort $(wildcard tests/test_*.c)))

# $(call objs,dir): every object of the library (all but main) built into dir.
objs = $(addprefix $(1)/,$(VARIANT_OBJS)) $(patsubst %.c,$(1)/%.o,$(PLAIN_C))
REL_OBJS := $(call objs,$(B)/rel)
# build/dodbench-sim links the variants the callgrind runs name (make bench's particle
# kernels and make bench-sim's SIM_CONTAINERS) and no other: compiling all ~200 variant
# objects a second time for it took half of make bench's build. SIM_VARIANTS=all links
# every variant (for SIM_CONTAINERS=all); a container not linked is refused with a message.
# make bench-sim's lookup line (below): the handle designs' random lookup at 1M 16-byte
# items (RESULTS.md's handle-design table: instructions and lines per lookup beside the
# time of make bench's same case), under the desktop geometry only: 16 MB of items, twice
# its last level. One rep: the counts are deterministic. About a minute (peer_stb_arr's
# hash lookup is most of it). A list of container names.
SIM_LOOKUP ?= plain_array handle_map packed_array slot_map sparse_set_paged slotmap_versioned \
              slotmap_inline bulk_holes_vm bulk_holes_vm_pow2 bulk_holes_vm_line \
              bulk_holes_runs_vm peer_colony peer_stb_arr
# make bench's A17/A18 callgrind line (sweeps/bench.txt): loads per op of each store.
SIM_STORES ?= bulk_swappop_vm bulk_swappop_realloc bulk_swappop_fixblocks bulk_holes_realloc \
              bulk_holes_fixblocks
# make bench's D3 callgrind line: D1 misses per tag of the linked nodes' walk (and the
# vector of vectors' beside it).
SIM_AOA ?= aoa_linked_nodes aoa_vec_of_vecs
comma := ,
space := $(subst ,, )
# make hosts-example's sweep (sweeps/hosts.txt): the key ratios' designs.
SIM_HOSTS ?= bulk_holes_runs_realloc bulk_holes_bitmask_realloc peer_colony aoa_chunked8
SIM_VARIANTS ?= $(filter particles_%,$(VARIANTS)) handle_map plain_array peer_malloc_ptrs \
                peer_unordered_map $(SIM_LOOKUP) $(SIM_STORES) $(SIM_AOA) $(SIM_HOSTS)
SIM_VARIANT_OBJS := $(if $(filter all,$(SIM_VARIANTS)),$(VARIANT_OBJS),\
                      $(filter $(foreach v,$(SIM_VARIANTS),v/$(v).%),$(VARIANT_OBJS)))
SIM_OBJS := $(addprefix $(B)/sim/,$(SIM_VARIANT_OBJS)) $(patsubst %.c,$(B)/sim/%.o,$(PLAIN_C))
SAN_OBJS := $(call objs,$(B)/san)

# The vectorization table (build/rel/vectorization.tsv, scripts/vec-table.sh): gcc's loop
# vectorizer writes what it did with each loop of a build/rel object to OBJECT.vect
# (function by function), which the table reads for the functions of the ops tables that
# hold the timed loops and for the hand-written loops of VEC_HAND_LOOPS' scenarios. gcc
# only (the option is gcc's); it does not change the code, so it is not in the cflags
# column.
CC_IS_GCC := $(shell $(CC) --version 2>/dev/null | grep -q 'Free Software Foundation' && echo 1)
VECT_rel   = $(if $(CC_IS_GCC),-fdump-tree-vect-optimized-missed=$@.vect)
VEC_TABLE := $(B)/rel/vectorization.tsv
# Scenarios whose run() times a loop of their own over plain_array's 8-byte keys.
VEC_HAND_LOOPS := iterate_inline stream_read

V ?= 0
Q := $(if $(filter 1,$(V)),,@)

.PHONY: all build build-san bench bench-quick bench-sim bench-process bench-run bench-quick-run \
        bench-sim-run bench-process-run test report publish merge hosts-report hosts-example hosts-example-report advise screenshot deps clean test-c test-san test-py \
        test-py-rel test-py-san
all: build

build: $(B)/dodbench $(B)/dodbench-sim $(if $(CC_IS_GCC),$(VEC_TABLE))

build-san: $(B)/dodbench-san

deps:
	@bash scripts/install-deps.sh

# One run id for all the invocations of a sweep file, so the report treats them as one run.
RUN_ID    := bench-$(BENCH_STAMP)-$(shell hostname | tr -c 'A-Za-z0-9._\n-' _)
RUN_AT     = $(B)/dodbench run --seed 1 --run-id $(RUN_ID) --out $(BENCH_OUT)
RUN        = $(RUN_AT) --n $(BENCH_N)
# The sweeps are data: one `dodbench run` per line of these files (docs/ARCHITECTURE.md,
# "Sweeps").
SWEEPS       ?= sweeps/bench.txt
SWEEPS_QUICK ?= sweeps/quick.txt
QUICK_OUT    ?= results/quick-$(BENCH_STAMP).csv

# Each user target installs dependencies first, then re-runs make: the Makefile's view of
# what is installed (HAVE_PAPI) must be taken after the install. The build runs on every
# core (JOBS, below); the measuring runs one case at a time (its recipe is one command).
bench bench-quick bench-sim bench-process: deps
	@$(MAKE) --no-print-directory build
	@$(MAKE) --no-print-directory $@-run

# The cache sizes are measured once (dodbench caches: sysfs's and the pointer chase's,
# recorded beside the CSV) and every sweep's --n l1,l2,llc,dram reads that measurement.
MEASURED_CACHES = awk -F'\t' '$$1 ~ /^(l1|l2|llc)$$/ && $$3 != "" \
                  { printf "%s%s=%s", sep, $$1, $$3; sep = "," }'
# A run's report goes to results/RUN_ID/ (RESULTS.md, charts, every-case pages), beside its
# CSV: a user's run writes no tracked file (only `make publish` does).
bench-run: build
	@mkdir -p $(dir $(BENCH_OUT))
	$(if $(CC_IS_GCC),cp $(VEC_TABLE) $(BENCH_OUT:.csv=.vectorization.tsv))
	$(PYTHON) reports/machine.py $(BENCH_OUT:.csv=.machine.json)
	$(B)/dodbench caches --curve > $(BENCH_OUT:.csv=.caches.tsv)
	DODBENCH_MEASURED_CACHES="$$($(MEASURED_CACHES) $(BENCH_OUT:.csv=.caches.tsv))" \
	SHARD=$(SHARD) PYTHON=$(PYTHON) bash scripts/run-sweeps.sh $(SWEEPS) $(B)/dodbench $(RUN_ID) \
	  $(BENCH_OUT)
	$(if $(SHARD),@echo "shard $(SHARD) of run $(RUN_ID): $(BENCH_OUT); when every shard is" \
	  "done: make merge RUN_ID=$(RUN_ID)",$(PYTHON) reports/report.py $(BENCH_OUT))

# Every container x every scenario at small n: a smoke run in well under a minute.
bench-quick-run: build
	@mkdir -p results
	PYTHON=$(PYTHON) bash scripts/run-sweeps.sh $(SWEEPS_QUICK) $(B)/dodbench quick-$(RUN_ID) $(QUICK_OUT)

# Simulated caches (callgrind) for the handle_map table's cases: the host's cache
# geometry and a typical desktop one (8 MB 16-way LL). The 100k-item defragment is
# O(n^2) under a ~90x slower simulator: about 12 minutes on its own (SIM_DEFRAG=0 skips).
SIM_LL     ?= 8388608,16,64
SIM_DEFRAG ?= 1
# The handle_map table's containers (the sim_caches section reports those); simulating all
# ~30 variants would take hours. SIM_CONTAINERS=all SIM_VARIANTS=all (or a glob) to widen it.
SIM_CONTAINERS ?= handle_map,plain_array,peer_malloc_ptrs,peer_unordered_map
SIM_RUN     = $(RUN) --counters callgrind --container $(SIM_CONTAINERS) --elem-bytes 8 --quiet
bench-sim-run: build
	@mkdir -p results
	$(SIM_RUN) --scenario create,iterate,lookup,clear,reset --order seq,random --reps 3 --warmup 1
	$(SIM_RUN) --scenario create,iterate,lookup,clear,reset --order seq,random --reps 3 --warmup 1 \
	  --sim-ll $(SIM_LL)
	$(RUN_AT) --counters callgrind --container $(subst $(space),$(comma),$(strip $(SIM_LOOKUP))) \
	  --scenario lookup --n 1000000 --elem-bytes 16 --order random --reps 1 --warmup 0 \
	  --sim-ll $(SIM_LL) --quiet
	$(if $(filter 1,$(SIM_DEFRAG)),$(SIM_RUN) --scenario defragment --reps 1 --warmup 0 --sim-ll $(SIM_LL))
	@$(MAKE) --no-print-directory report

# hyperfine over whole processes beside the in-process lifecycle timer; then the report,
# whose process section takes the newest export of this host and revision.
bench-process-run: build
	bash scripts/bench-process.sh
	@$(MAKE) --no-print-directory report

# make report: the make bench runs in results/ (bench-*.csv), else the published run
# (results/published/bench.csv.xz); a quick or hand-made run only when named: CSV=path.
# It writes results/RUN_ID/RESULTS.md and its charts and pages, never a tracked file.
report:
	$(PYTHON) reports/report.py $(CSV)

# make merge RUN_ID=ID: the shards of a sharded run (make bench SHARD=K/N RUN_ID=ID, on
# one machine or on the nodes of a Slurm array: scripts/slurm-bench.sbatch) checked and
# merged (reports/merge_shards.py: every case of the plan exactly once, one machine) into
# results/ID.csv, then its report.
merge:
	$(if $(filter command line environment,$(origin RUN_ID)),,@echo "make merge needs" \
	  "RUN_ID=ID: the run id its shards were run with (results/shards/ID/)" >&2; exit 2)
	$(PYTHON) reports/merge_shards.py --out results/$(RUN_ID).csv results/shards/$(RUN_ID)/*.csv
	$(PYTHON) reports/report.py results/$(RUN_ID).csv

# make hosts-report HOSTS="results/desk results/devkit": one report over the runs of several
# machines (reports/hosts.py: one directory per host holding its make bench CSV and
# sidecars) into results/hosts-report/ (untracked): per host its report and claim classes,
# the key ratios with a point per host, the claims whose class differs.
HOSTS ?= $(HOSTS_EXAMPLE)/sim-small $(HOSTS_EXAMPLE)/sim-large
hosts-report:
	$(PYTHON) reports/hosts.py --out-dir results/hosts-report $(HOSTS)

# The committed example of that report until real second hosts exist (tracked files: run it
# beside make publish, never from a user's make bench): sweeps/hosts.txt on this machine
# under callgrind with two simulated cache hierarchies as two "hosts", each run xz -9e with
# its machine file in results/hosts-example/<host>/, and their report in .../report/.
HOSTS_EXAMPLE := results/hosts-example
HOST_SIM_small := --sim-d1 32768,8,64 --sim-ll 1048576,16,64
HOST_SIM_large := --sim-d1 49152,12,64 --sim-ll 33554432,16,64
hosts-example: build
	rm -rf $(B)/hosts-example $(HOSTS_EXAMPLE)/report
	$(foreach h,small large,mkdir -p $(B)/hosts-example/sim-$(h) $(HOSTS_EXAMPLE)/sim-$(h) && \
	  SWEEP_EXTRA="--counters callgrind $(HOST_SIM_$(h))" PYTHON=$(PYTHON) bash scripts/run-sweeps.sh \
	  sweeps/hosts.txt $(B)/dodbench hosts-sim-$(h) $(B)/hosts-example/sim-$(h)/bench-hosts-sim-$(h).csv && \
	  xz -9e -c $(B)/hosts-example/sim-$(h)/bench-hosts-sim-$(h).csv \
	    > $(HOSTS_EXAMPLE)/sim-$(h)/bench-hosts-sim-$(h).csv.xz && \
	  $(PYTHON) reports/machine.py $(HOSTS_EXAMPLE)/sim-$(h)/bench-hosts-sim-$(h).machine.json &&) true
	$(MAKE) --no-print-directory hosts-example-report
# Its report alone, from the committed runs (after a change to the report code).
hosts-example-report:
	rm -rf $(HOSTS_EXAMPLE)/report
	$(PYTHON) reports/hosts.py --out-dir $(HOSTS_EXAMPLE)/report $(HOSTS_EXAMPLE)/sim-small \
	  $(HOSTS_EXAMPLE)/sim-large

# make advise ARGS="--n 100000 --elem-bytes 8 --hole-ratio 0.25 --mix
# iterate=0.7,lookup=0.2,churn=0.1 --needs stable_handles": the registered designs ranked by
# the cost of that operation mix, from the run make report reads (reports/advise.py --help).
advise:
	$(PYTHON) reports/advise.py $(ARGS)

# README's picture of the HTML report: the published run's index.html as headless chromium
# draws it (reports/browser.py), written to docs/report-index.png (a tracked file: run it
# beside make publish, never from a user's make bench).
screenshot: deps
	$(PYTHON) reports/report.py --out-dir $(B)/screenshot-report $(PUBLISHED)/bench.csv.xz >/dev/null
	$(PYTHON) reports/browser.py $(B)/screenshot-report/index.html docs/report-index.png

# The committed results: RESULTS.md and its charts and pages (results/published/report/),
# and the runs behind them: the rows of the runs named (CSV=path: a make bench run, plus
# the make bench-sim run of the same machine and revision for the callgrind section), xz
# -9e, with their machine file; REPEAT=path, a second make bench run on the same machine
# and revision, as bench-repeat.csv.xz (the document judges every claim on both: a class
# the repeat does not share is "not reproduced"); PROCESS=path, the make bench-process
# export of that machine and revision (default: the newest one of results/ that matches).
# With no CSV, the committed runs again: after a change to the report, `make publish`
# regenerates RESULTS.md from them. A fresh clone's `make report` reads the same runs.
PUBLISHED := results/published
publish:
	$(PYTHON) reports/report.py --no-html --publish $(PUBLISHED)/bench.csv.xz --results-md RESULTS.md \
	  --out-dir $(PUBLISHED)/report $(if $(REPEAT),--repeat $(REPEAT)) \
	  $(if $(PROCESS),--process $(PROCESS)) $(or $(CSV),$(PUBLISHED)/bench.csv.xz)

# make test's parts are independent and run side by side (JOBS at once, each pytest run
# on every core too): a part's output is printed whole when it ends (--output-sync), every
# part runs even when another fails (-k), and make test fails when any part failed, naming
# those (a part that passed leaves build/test-passed/PART). The order is the order make
# starts them in: the short fuzz pass early, so its single-core run overlaps the ASan+UBSan
# build.
TEST_PARTS := test-c test-py-rel test-fuzz-run test-san test-py-san
test: deps
	@rm -rf $(B)/test-passed; t0=$$(date +%s); \
	if $(MAKE) --no-print-directory -k --output-sync=target $(TEST_PARTS); then \
	  echo "make test: all $(words $(TEST_PARTS)) parts passed in $$(($$(date +%s) - t0)) s"; \
	else \
	  for p in $(TEST_PARTS); do test -e $(B)/test-passed/$$p || failed="$$failed $$p"; done; \
	  echo "make test: FAILED:$$failed (each part's output is above, whole, ending with make's" \
	    "'*** [Makefile:LINE: PART]' line)" >&2; exit 1; \
	fi
passed = @mkdir -p $(B)/test-passed && touch $(B)/test-passed/$@

# Every tests/test_NAME.c is a cmocka binary linked with the whole library, built twice:
# build/rel/test_NAME and build/san/test_NAME (ASan+UBSan).
TESTS_REL := $(addprefix $(B)/rel/,$(TEST_NAMES))
TESTS_SAN := $(addprefix $(B)/san/,$(TEST_NAMES))

test-c: $(TESTS_REL)
	$(Q)for t in $^; do echo "== $$t"; ./$$t || exit 1; done
	$(passed)

test-san: $(TESTS_SAN)
	$(Q)for t in $^; do echo "== $$t (ASan+UBSan)"; ./$$t || exit 1; done
	$(passed)

# The CLI and output tests run a second time against the ASan+UBSan build of dodbench.
SAN_CLI_TESTS := tests/python/test_cli.py tests/python/test_output.py tests/python/test_output2.py \
                 tests/python/test_output3.py tests/python/test_passes.py \
                 tests/python/test_particles.py tests/python/test_stream_read.py \
                 tests/python/test_list_scenarios.py tests/python/test_tags_scenarios.py \
                 tests/python/test_defrag_frames.py tests/python/test_advise.py \
                 tests/python/test_shards.py tests/python/test_hosts.py \
                 tests/python/test_fake_papi.py
# pytest-xdist spreads the tests over every core (-n auto); a test that cannot use tmp_path
# for what it writes runs in one worker with the others of its @pytest.mark.xdist_group
# (--dist loadgroup). No pytest cache: the two runs would write it at once. The tests'
# own `make` runs start afresh (no MAKEFLAGS: this make's jobserver is not theirs). Both
# runs read build/ (the binaries, build/rel's objects and vectorization table;
# test_particles links build/rel's test_conformance objects), so both wait for all of it.
PYTEST := env -u MAKEFLAGS -u MFLAGS $(PYTHON) -m pytest -q -p no:cacheprovider -n auto \
          --dist loadgroup
PY_NEEDS := build $(B)/dodbench-faults $(B)/rel/test_conformance $(if $(HAVE_PAPI),$(FAKE_PAPI))
test-py: test-py-rel test-py-san
test-py-rel: $(PY_NEEDS)
	$(PYTEST) tests/python
	$(passed)
test-py-san: $(PY_NEEDS) $(B)/dodbench-san
	DODBENCH=$(B)/dodbench-san $(PYTEST) $(SAN_CLI_TESTS)
	$(passed)

# What a build made; the runs in results/ are the user's (and results/published is committed).
clean:
	rm -rf $(B)

# ---- machinery ----
# A dirty tree's revision carries a hash of its diff (and of its untracked files' names
# and contents), so two runs of different uncommitted states never share a git_rev.
GIT_REV := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell \
             test -n "$$(git status --porcelain 2>/dev/null)" && echo -dirty-$$( \
             { git diff HEAD 2>/dev/null; git ls-files --others --exclude-standard -z | \
               xargs -0 -r sha256sum 2>/dev/null; } | sha256sum | cut -c1-10))

# The git_rev column's value (tests/python/test_cli.py checks the dirty-tree hash).
print-git-rev:
	@echo '$(GIT_REV)'
.PHONY: print-git-rev

# The table's rule: see VEC_TABLE above.
$(VEC_TABLE): $(addprefix $(B)/rel/,$(VARIANT_OBJS)) \
              $(patsubst %,$(B)/rel/scenarios/%.o,$(VEC_HAND_LOOPS)) \
              scripts/vec-table.sh scripts/vec-loops.awk $(VARIANT_TABLE)
	$(if $(Q),@echo "  VEC   $@";)bash scripts/vec-table.sh $(VARIANT_TABLE) $(B)/rel $@ \
	  $(VEC_HAND_LOOPS)

# Objects are rebuilt when the flags change: the flags live in a stamp file. A stamp file is
# rewritten only when its text changes, and only then is it out of date (FORCE): so
# `make -n` lists what a build would really do (the compile count below relies on it).
FLAGS_NOW := $(CC) $(CXX) $(CFLAGS_R) $(CXXFLAGS_R) $(OPT_SIM) $(PAPI_DEF) $(VECT_rel)
# $(call changed,file,text): FORCE when file does not hold exactly text (and a newline).
changed = $(if $(shell echo '$(2)' | cmp -s - $(1) && echo same),,FORCE)
$(B)/flags.stamp: $(call changed,$(B)/flags.stamp,$(FLAGS_NOW))
	@mkdir -p $(B)
	@echo '$(FLAGS_NOW)' > $@
$(B)/sim-variants.stamp: $(call changed,$(B)/sim-variants.stamp,$(SIM_VARIANT_OBJS))
	@mkdir -p $(B)
	@echo '$(SIM_VARIANT_OBJS)' > $@
GITREV_H  := \#define DOD_GIT_REV "$(GIT_REV)"
$(B)/gitrev.h: $(call changed,$(B)/gitrev.h,$(GITREV_H))
	@mkdir -p $(B)
	@echo '$(GITREV_H)' > $@
.PHONY: FORCE
FORCE:

# ---- parallel builds and the compile count ----
# Every make typed at the shell runs JOBS jobs at once; its sub-makes share them through
# make's jobserver (setting -j in a sub-make would start a second one). A -jN on the
# command line wins. With clean among several goals it stays serial: `make clean build`
# must not build while clean deletes.
ifeq ($(MAKELEVEL)$(DOD_PROGRESS),0)
ifeq ($(and $(filter clean,$(MAKECMDGOALS)),$(word 2,$(MAKECMDGOALS))),)
MAKEFLAGS += -j$(JOBS)
endif
endif
# Each compile line shows its place, "  CC    [k/n] build/rel/v/handle_map.8.o": k counts
# the compiles this make has started (make expands a recipe in its own process before
# starting it, one at a time even under -j, so a make variable counts without a race); n
# is the number of objects this make will compile, counted once, when the first compile
# starts (a no-op build never pays for it), by a dry run (make -n) of the same goals in
# which $(progress) expands to a marker. n is "?" when the dry run fails.
DOD_STARTED :=
DOD_MARK    := @dod-compile@
ifeq ($(DOD_PROGRESS),count)
progress = $(DOD_MARK)
else
progress = $(if $(DOD_TOTAL),,$(eval DOD_TOTAL := $(call count_compiles)))$(eval \
  DOD_STARTED += x)[$(words $(DOD_STARTED))/$(DOD_TOTAL)]
endif
# The dry run gets this make's flags and command-line variables but not its jobserver;
# $(shell) in make 4.3 does not pass MAKEFLAGS itself.
count_compiles = $(or $(shell MAKEFLAGS='$(subst ','\'',$(filter-out -j% --jobserver%,$(MAKEFLAGS)))' \
  $(MAKE) -n --no-print-directory $(MAKECMDGOALS) DOD_PROGRESS=count 2>/dev/null | \
  grep -c '$(DOD_MARK)'),?)
.SECONDARY:

# Three object trees: rel (build/dodbench), sim (build/dodbench-sim: the same code for
# callgrind, whose valgrind 3.19 cannot decode AVX-512, so without it) and san (tests
# under ASan+UBSan). Objects of the container files get the size class in their name.
CFLAGS_rel   := $(CFLAGS_R)
CXXFLAGS_rel := $(CXXFLAGS_R)
CFLAGS_sim   := -std=c11 $(OPT_SIM) -g $(WARN)
CXXFLAGS_sim := -std=c++20 $(OPT_SIM) -g -Wall -Wextra
CFLAGS_san   := -std=c11 $(SAN) $(WARN)
CXXFLAGS_san := -std=c++20 $(SAN)

# $(call compile_variant,tree,size,variant,source): one container variant at one size
# class, with the variant's descriptor header force-included.
compile_variant = $(Q)mkdir -p $(@D); $(if $(Q),echo "  $(if $(filter %.cpp,$(4)),CXX,CC )   $(progress) $@";) \
	$(if $(filter %.cpp,$(4)),$(CXX) $(CXXFLAGS_$(1)),$(CC) $(CFLAGS_$(1)) $(PAPI_DEF)) $(INC) \
	-DELEM_BYTES=$(2) -include $(B)/gen/variants/$(3).h $(VECT_$(1)) -MMD -MP -c $(4) -o $@

# The generator rewrites only the files whose text changed (so objects rebuild only for a
# changed variant) and variants.mk is touched, so it is newer than what it was made from.
# Make remakes variants.mk (an included makefile) before anything else, so the headers
# exist by then; they name no prerequisite, or `make -n` would list every object.
$(B)/gen/variants.mk: $(VARIANT_TABLE) scripts/gen-variants.sh Makefile
	@bash scripts/gen-variants.sh $(VARIANT_TABLE) $(B)/gen "$(SIZES)" && touch $@
$(B)/gen/variants.inc $(B)/gen/sizes.h: ;
$(B)/gen/variants/%.h: ;

define tree_rules # tree
$(B)/$(1)/harness/env.o: $(B)/gitrev.h
$(B)/$(1)/harness/registry.o: $(B)/gen/variants.inc
$(B)/$(1)/%.o: %.c $(B)/flags.stamp
	@mkdir -p $$(@D)
	$(if $(Q),@echo "  CC    $$(progress) $$@";)$(CC) $(CFLAGS_$(1)) $(PAPI_DEF) $(INC) -DDOD_CFLAGS='"$(CFLAGS_$(1))"' $$(VECT_$(1)) $$(XDEFS) -MMD -MP -c $$< -o $$@
endef
$(B)/sim/harness/registry.o: XDEFS := -DHB_PARTIAL_REGISTRY
$(foreach t,rel sim san,$(eval $(call tree_rules,$(t))))

$(B)/dodbench: $(REL_OBJS) $(B)/rel/harness/main.o $(B)/rel/harness/alloc_count.o
	$(if $(Q),@echo "  LINK  $@";)$(CXX) $(OPT) -o $@ $^ $(PAPI_LIB) -lm
$(B)/dodbench-sim: $(SIM_OBJS) $(B)/sim/harness/main.o $(B)/sim/harness/alloc_count.o \
                   $(B)/sim-variants.stamp
	$(if $(Q),@echo "  LINK  $@";)$(CXX) $(OPT_SIM) -o $@ $(filter %.o,$^) $(PAPI_LIB) -lm

# The test build of dodbench: the same objects plus scenarios that crash, hang or fail on
# purpose (tests/faults/faults.c), for the case-isolation tests. Never used by make bench.
# A test-only stand-in for libpapi (tests/fake/papi.c, scripted counts), preloaded in front
# of the real one by tests/python/test_fake_papi.py: the counter path runs without a PMU.
FAKE_PAPI := $(B)/libfakepapi.so
$(FAKE_PAPI): tests/fake/papi.c
	@mkdir -p $(@D)
	$(Q)$(CC) -shared -fPIC -O1 -Wall -Wextra -Werror -o $@ $<

$(B)/dodbench-faults: $(REL_OBJS) $(B)/rel/harness/main.o $(B)/rel/harness/alloc_count.o \
                      $(B)/rel/tests/faults/faults.o
	$(if $(Q),@echo "  LINK  $@";)$(CXX) $(OPT) -o $@ $^ $(PAPI_LIB) -lm

# dodbench built with ASan+UBSan (make build-san): the CLI tests run it too. No allocator
# counting (ASan interposes malloc itself), so its allocs/frees columns stay empty.
$(B)/dodbench-san: $(SAN_OBJS) $(B)/san/harness/main.o
	$(if $(Q),@echo "  LINK  $@";)$(CXX) $(SAN) -o $@ $^ $(PAPI_LIB) -lm

$(B)/rel/test_%: $(B)/rel/tests/test_%.o $(REL_OBJS)
	$(if $(Q),@echo "  LINK  $@";)$(CXX) -o $@ $^ -lcmocka $(PAPI_LIB) $(TEST_LDFLAGS) -lm
$(B)/san/test_%: $(B)/san/tests/test_%.o $(SAN_OBJS)
	$(if $(Q),@echo "  LINK  $@";)$(CXX) $(SAN) -o $@ $^ -lcmocka $(PAPI_LIB) $(TEST_LDFLAGS) -lm
# test_holes_create fails the allocations of create through wrappers of its own (it counts
# blocks and mappings, so free and munmap are wrapped too).
HOLES_CREATE_WRAP := $(foreach f,malloc calloc realloc aligned_alloc posix_memalign free mmap \
                       munmap mprotect,-Wl,--wrap=$(f))
$(B)/rel/test_holes_create $(B)/san/test_holes_create: TEST_LDFLAGS := $(HOLES_CREATE_WRAP)

-include $(shell find $(B) -name '*.d' 2>/dev/null)

# ==== fuzzing and the shared test model (tests/model.c, tests/fuzz/) ====================
# make fuzz: every registered variant (VARIANTS, from the variant table: no list here) runs
# under libFuzzer for FUZZ_SECONDS, one run and one corpus directory each
# (build/fuzz/corpus/NAME, seeded from tests/fuzz/corpus/common and
# tests/fuzz/corpus/NAME), and its executions are printed. make test runs each for
# FUZZ_CI_RUNS inputs (a count, not a clock). The fuzz build is clang's (Debian clang
# 14), with libFuzzer, ASan and UBSan; see tests/fuzz/fuzz_containers.c and
# docs/ARCHITECTURE.md, "Fuzzing".
FUZZ_SECONDS ?= 60
FUZZ_CI_RUNS ?= 400
FUZZ_CC      ?= clang
FUZZ_CXX     ?= clang++
FUZZ_SAN     := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
CFLAGS_fuzz  := -std=c11 $(FUZZ_SAN) -fsanitize=fuzzer-no-link $(WARN)
CXXFLAGS_fuzz:= -std=c++20 $(FUZZ_SAN) -fsanitize=fuzzer-no-link -Wall -Wextra
FUZZ_WRAP    := $(foreach f,malloc calloc realloc aligned_alloc posix_memalign,-Wl,--wrap=$(f))
FUZZ_BIN     := $(B)/fuzz/fuzz_containers
FUZZ_OBJS    := $(addprefix $(B)/fuzz/,$(VARIANT_OBJS)) \
                $(patsubst %.c,$(B)/fuzz/%.o,containers/dod_common.c \
                  $(sort $(wildcard containers/alloc/*.c)) containers/peers/stb_ds_impl.c \
                  harness/registry.c tests/model.c tests/model_dc.c tests/fuzz/fuzz_containers.c \
                  tests/fuzz/alloc_hook.c) \
                $(B)/fuzz/tests/fuzz/alloc_hook_new.o

.PHONY: fuzz fuzz-run test-fuzz test-fuzz-run
fuzz: deps
	@$(MAKE) --no-print-directory fuzz-run
fuzz-run: $(FUZZ_BIN)
	bash tests/fuzz/run.sh $(FUZZ_BIN) time $(FUZZ_SECONDS) $(VARIANTS)
# make test runs the short fuzz pass too (test-fuzz-run, after deps: clang comes from there).
test-fuzz: deps
	@$(MAKE) --no-print-directory test-fuzz-run
test-fuzz-run: $(FUZZ_BIN)
	bash tests/fuzz/run.sh $(FUZZ_BIN) runs $(FUZZ_CI_RUNS) $(VARIANTS)
	$(passed)

# The variant objects come from the generated rules (compile_variant, which reads CC and
# CXX when it runs); the other objects from these two.
$(B)/fuzz/%: CC := $(FUZZ_CC)
$(B)/fuzz/%: CXX := $(FUZZ_CXX)
$(B)/fuzz/%.o: %.c $(B)/flags.stamp
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC    $(progress) $@";)$(FUZZ_CC) $(CFLAGS_fuzz) $(INC) -MMD -MP -c $< -o $@
$(B)/fuzz/%.o: %.cpp $(B)/flags.stamp
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CXX   $(progress) $@";)$(FUZZ_CXX) $(CXXFLAGS_fuzz) $(INC) -MMD -MP -c $< -o $@
$(B)/fuzz/tests/fuzz/%.o: INC += -Itests -Itests/fuzz
$(B)/fuzz/tests/model.o $(B)/fuzz/tests/model_dc.o: INC += -Itests
$(FUZZ_BIN): $(FUZZ_OBJS)
	$(if $(Q),@echo "  LINK  $@";)$(FUZZ_CXX) $(FUZZ_SAN) -fsanitize=fuzzer $(FUZZ_WRAP) -o $@ $^ -lm

# test_conformance and test_alloc_fail link the reference model tests/model.c.
$(B)/rel/test_conformance $(B)/rel/test_alloc_fail $(B)/rel/test_dc: $(B)/rel/tests/model.o \
  $(B)/rel/tests/model_dc.o
$(B)/san/test_conformance $(B)/san/test_alloc_fail $(B)/san/test_dc: $(B)/san/tests/model.o \
  $(B)/san/tests/model_dc.o
# ==== end of fuzzing ======================================================================
