# dodbench - see README.md. Targets users type: bench, test, report, build, deps, clean.

# ---- settings (override on the command line: make bench BENCH_REPS=21) ----
CC        ?= cc
CXX       ?= c++
PYTHON    := /usr/bin/python3
OPT       ?= -O2 -march=native
WARN      := -Wall -Wextra -Wpedantic -Wshadow
CFLAGS_R  := -std=c11 $(OPT) -g $(WARN)
CXXFLAGS_R:= -std=c++20 $(OPT) -g -Wall -Wextra
# Flags of build/dodbench-sim, the binary --counters callgrind runs under valgrind.
OPT_SIM   ?= -O2 -march=native -mno-avx512f
SAN       := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SIZES     := 8 16 64 256
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
BENCH_OUT ?= results/bench-$(BENCH_STAMP).csv
# -------------------------------------------------------------------------

B := build
HAVE_PAPI := $(shell test -f /usr/include/papi.h && echo 1)
PAPI_DEF  := $(if $(HAVE_PAPI),-DHAVE_PAPI)
PAPI_LIB  := $(if $(HAVE_PAPI),-lpapi)
INC       := -Icontainers -Iharness -Iscenarios -I$(B)

# Containers compiled once per size class (DESIGN.md: element sizes are compile-time).
SIZED_C   := containers/handle_map.c containers/plain_array.c containers/peers/malloc_ptrs.c
SIZED_CXX := containers/peers/unordered_map.cpp
PLAIN_C   := containers/dod_common.c harness/registry.c harness/measure.c harness/env.c \
             harness/csv.c harness/stats.c harness/json.c harness/sim.c $(wildcard scenarios/*.c)
MAIN_C    := harness/main.c

# $(call objs,dir): every object of the library (all but main) built into dir.
objs = $(foreach s,$(SIZES),$(patsubst %.c,$(1)/%.$(s).o,$(SIZED_C)) \
         $(patsubst %.cpp,$(1)/%.$(s).o,$(SIZED_CXX))) $(patsubst %.c,$(1)/%.o,$(PLAIN_C))
REL_OBJS := $(call objs,$(B)/rel)
SIM_OBJS := $(call objs,$(B)/sim)
SAN_OBJS := $(call objs,$(B)/san)

V ?= 0
Q := $(if $(filter 1,$(V)),,@)

.PHONY: all build bench bench-sim bench-process bench-run bench-sim-run bench-process-run test \
        report deps clean test-c test-san test-py
all: build

build: $(B)/dodbench $(B)/dodbench-sim

deps:
	@bash scripts/install-deps.sh

# One run id for the three invocations, so the report treats them as one run.
RUN_ID    := bench-$(BENCH_STAMP)-$(shell hostname | tr -c 'A-Za-z0-9._\n-' _)
RUN        = $(B)/dodbench run --n $(BENCH_N) --seed 1 --run-id $(RUN_ID) --out $(BENCH_OUT)

# Each user target installs dependencies first, then re-runs make: the Makefile's view of
# what is installed (HAVE_PAPI) must be taken after the install.
bench bench-sim bench-process: deps
	@$(MAKE) --no-print-directory $@-run

bench-run: build
	@mkdir -p results
	$(RUN) --container all --scenario create,iterate,lookup,clear,reset --elem-bytes 8 \
	  --order seq,random --reps $(BENCH_REPS) --warmup $(BENCH_WARMUP) --interleave --prefault
	$(RUN) --container plain_array --scenario iterate,iterate_inline --elem-bytes 8 \
	  --reps $(CALIBRATE_REPS) --warmup $(BENCH_WARMUP) --interleave --prefault --quiet
	$(RUN) --container all --scenario defragment --elem-bytes 8 --reps $(DEFRAG_REPS) \
	  --warmup 1 --prefault --quiet
	$(RUN) --container all --scenario create,iterate,lookup,clear --elem-bytes 16,64,256 \
	  --order seq,random --reps $(BENCH_REPS) --warmup $(BENCH_WARMUP) --interleave --prefault --quiet
	$(B)/dodbench run --n $(SWEEP_N) --seed 1 --run-id $(RUN_ID) --out $(BENCH_OUT) \
	  --container all --scenario create,iterate,lookup --elem-bytes 8 --reps 7 --warmup 1 \
	  --interleave --prefault --quiet
	@$(MAKE) --no-print-directory report

# Simulated caches (callgrind) for the handle_map table's cases: the host's cache
# geometry and a typical desktop one (8 MB 16-way LL). The 100k-item defragment is
# O(n^2) under a ~90x slower simulator: about 12 minutes on its own (SIM_DEFRAG=0 skips).
SIM_LL     ?= 8388608,16,64
SIM_DEFRAG ?= 1
SIM_RUN     = $(RUN) --counters callgrind --container all --elem-bytes 8 --quiet
bench-sim-run: build
	@mkdir -p results
	$(SIM_RUN) --scenario create,iterate,lookup,clear,reset --order seq,random --reps 3 --warmup 1
	$(SIM_RUN) --scenario create,iterate,lookup,clear,reset --order seq,random --reps 3 --warmup 1 \
	  --sim-ll $(SIM_LL)
	$(if $(filter 1,$(SIM_DEFRAG)),$(SIM_RUN) --scenario defragment --reps 1 --warmup 0 --sim-ll $(SIM_LL))
	@$(MAKE) --no-print-directory report

# hyperfine over whole processes beside the in-process lifecycle timer.
bench-process-run: build
	bash scripts/bench-process.sh

report:
	$(PYTHON) reports/report.py

test: deps
	@$(MAKE) --no-print-directory test-c test-san test-py

TESTS_REL := $(B)/rel/test_handle_map_8 $(B)/rel/test_handle_map_64 $(B)/rel/test_conformance \
             $(B)/rel/test_csv $(B)/rel/test_measure
TESTS_SAN := $(patsubst $(B)/rel/%,$(B)/san/%,$(TESTS_REL))

test-c: $(TESTS_REL)
	$(Q)for t in $^; do echo "== $$t"; ./$$t || exit 1; done

test-san: $(TESTS_SAN)
	$(Q)for t in $^; do echo "== $$t (ASan+UBSan)"; ./$$t || exit 1; done

test-py: build
	$(PYTHON) -m pytest -q tests/python

clean:
	rm -rf $(B) reports/out

# ---- machinery ----
GIT_REV := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell \
             test -n "$$(git status --porcelain 2>/dev/null)" && echo -dirty)

# Objects are rebuilt when the flags change: the flags live in a stamp file.
FLAGS_NOW := $(CC) $(CXX) $(CFLAGS_R) $(CXXFLAGS_R) $(OPT_SIM) $(PAPI_DEF)
$(B)/flags.stamp: FORCE
	@mkdir -p $(B)
	@echo '$(FLAGS_NOW)' | cmp -s - $@ || echo '$(FLAGS_NOW)' > $@
$(B)/gitrev.h: FORCE
	@mkdir -p $(B)
	@echo '#define DOD_GIT_REV "$(GIT_REV)"' | cmp -s - $@ || \
	  echo '#define DOD_GIT_REV "$(GIT_REV)"' > $@
.PHONY: FORCE
FORCE:
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

define sized_rules # tree, size
$(B)/$(1)/%.$(2).o: %.c $(B)/flags.stamp
	@mkdir -p $$(@D)
	$(if $(Q),@echo "  CC    $$@";)$(CC) $(CFLAGS_$(1)) $(PAPI_DEF) $(INC) -DELEM_BYTES=$(2) -MMD -MP -c $$< -o $$@
$(B)/$(1)/%.$(2).o: %.cpp $(B)/flags.stamp
	@mkdir -p $$(@D)
	$(if $(Q),@echo "  CXX   $$@";)$(CXX) $(CXXFLAGS_$(1)) $(INC) -DELEM_BYTES=$(2) -MMD -MP -c $$< -o $$@
endef
define tree_rules # tree
$(foreach s,$(SIZES),$(eval $(call sized_rules,$(1),$(s))))
$(B)/$(1)/harness/env.o: $(B)/gitrev.h
$(B)/$(1)/%.o: %.c $(B)/flags.stamp
	@mkdir -p $$(@D)
	$(if $(Q),@echo "  CC    $$@";)$(CC) $(CFLAGS_$(1)) $(PAPI_DEF) $(INC) -DDOD_CFLAGS='"$(CFLAGS_$(1))"' -MMD -MP -c $$< -o $$@
endef
$(foreach t,rel sim san,$(eval $(call tree_rules,$(t))))

$(B)/dodbench: $(REL_OBJS) $(B)/rel/harness/main.o $(B)/rel/harness/alloc_count.o
	$(if $(Q),@echo "  LINK  $@";)$(CXX) $(OPT) -o $@ $^ $(PAPI_LIB) -lm
$(B)/dodbench-sim: $(SIM_OBJS) $(B)/sim/harness/main.o $(B)/sim/harness/alloc_count.o
	$(if $(Q),@echo "  LINK  $@";)$(CXX) $(OPT_SIM) -o $@ $^ $(PAPI_LIB) -lm

# Unit tests: handle_map per size class, conformance of every registered container, CSV.
$(B)/%/test_handle_map_8: $(B)/%/tests/test_handle_map.8.o $(B)/%/containers/handle_map.8.o $(B)/%/containers/dod_common.o
	$(CC) $(if $(filter san,$*),$(SAN)) -o $@ $^ -lcmocka
$(B)/%/test_handle_map_64: $(B)/%/tests/test_handle_map.64.o $(B)/%/containers/handle_map.64.o $(B)/%/containers/dod_common.o
	$(CC) $(if $(filter san,$*),$(SAN)) -o $@ $^ -lcmocka
$(B)/rel/test_conformance $(B)/rel/test_csv $(B)/rel/test_measure: $(B)/rel/%: $(B)/rel/tests/%.o $(REL_OBJS)
	$(CXX) -o $@ $^ -lcmocka $(PAPI_LIB) -lm
$(B)/san/test_conformance $(B)/san/test_csv $(B)/san/test_measure: $(B)/san/%: $(B)/san/tests/%.o $(SAN_OBJS)
	$(CXX) $(SAN) -o $@ $^ -lcmocka $(PAPI_LIB) -lm

-include $(shell find $(B) -name '*.d' 2>/dev/null)
