# SPDX-License-Identifier: MIT
#
# fake_cuda.mk: GNU make fragment that builds the fake CUDA driver
# ($(B)/tests/fake_cuda/libcuda.so.1, plus a libcuda.so link for -lcuda) and its
# self-test programs. The includer provides B (build dir), CC and CUDA_HOME; nothing
# else from the includer is used. Without $(CUDA_HOME)/include/cuda.h the targets
# do nothing and FAKE_CUDA_LIB is empty, so tests that need it SKIP.
#
# Defines: FAKE_CUDA_LIB, FAKE_CUDA_SELFTEST_BINS, FAKE_CUDA_SELFTEST_SH and the
# phony targets fake-cuda (build all) and fake-cuda-check (build + run selftest.sh).

fake_cuda_saved_goal := $(.DEFAULT_GOAL)

FAKE_CUDA_SRCDIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
FAKE_CUDA_OUT := $(B)/tests/fake_cuda
FAKE_CUDA_SELFTEST_SH := $(FAKE_CUDA_SRCDIR)/selftest.sh

FAKE_CUDA_HAVE := $(if $(CUDA_HOME),$(wildcard $(CUDA_HOME)/include/cuda.h))
# The runtime for the cudart probe: lib64 in a standard toolkit, lib in some images.
FAKE_CUDA_CUDART_DIR := $(patsubst %/,%,$(dir $(firstword $(if $(CUDA_HOME),$(wildcard \
  $(CUDA_HOME)/lib64/libcudart.so $(CUDA_HOME)/lib/libcudart.so $(CUDA_HOME)/targets/*/lib/libcudart.so)))))

FAKE_CUDA_CFLAGS := -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -fno-omit-frame-pointer \
  -I$(CUDA_HOME)/include

.PHONY: fake-cuda fake-cuda-check

ifneq ($(FAKE_CUDA_HAVE),)

FAKE_CUDA_LIB := $(FAKE_CUDA_OUT)/libcuda.so.1
FAKE_CUDA_SELFTEST_BINS := $(FAKE_CUDA_OUT)/selftest \
  $(if $(FAKE_CUDA_CUDART_DIR),$(FAKE_CUDA_OUT)/selftest_cudart)

$(FAKE_CUDA_OUT)/libcuda.so.1: $(FAKE_CUDA_SRCDIR)/fake_cuda.c $(FAKE_CUDA_SRCDIR)/fake_cuda.mk
	@mkdir -p $(@D)
	$(CC) $(FAKE_CUDA_CFLAGS) -D__CUDA_API_VERSION_INTERNAL -fPIC -shared \
	  -Wl,-soname,libcuda.so.1 -Wl,-Bsymbolic -Wl,--no-undefined -o $@ $< -pthread

$(FAKE_CUDA_OUT)/libcuda.so: $(FAKE_CUDA_OUT)/libcuda.so.1
	ln -sf libcuda.so.1 $@

# dlopen()s the fake by path; does not link libcuda or libcudart.
$(FAKE_CUDA_OUT)/selftest: $(FAKE_CUDA_SRCDIR)/selftest.c $(FAKE_CUDA_SRCDIR)/fake_cuda.mk
	@mkdir -p $(@D)
	$(CC) $(FAKE_CUDA_CFLAGS) -o $@ $< -ldl -pthread

# The real runtime, to be run against the fake with LD_LIBRARY_PATH.
$(FAKE_CUDA_OUT)/selftest_cudart: $(FAKE_CUDA_SRCDIR)/selftest.c $(FAKE_CUDA_SRCDIR)/fake_cuda.mk
	@mkdir -p $(@D)
	$(CC) $(FAKE_CUDA_CFLAGS) -DFAKE_CUDA_SELFTEST_CUDART -o $@ $< -L$(FAKE_CUDA_CUDART_DIR) -lcudart

fake-cuda: $(FAKE_CUDA_LIB) $(FAKE_CUDA_OUT)/libcuda.so $(FAKE_CUDA_SELFTEST_BINS)

fake-cuda-check: fake-cuda
	bash $(FAKE_CUDA_SELFTEST_SH) $(B)

else

FAKE_CUDA_LIB :=
FAKE_CUDA_SELFTEST_BINS :=

$(FAKE_CUDA_OUT)/libcuda.so.1 $(FAKE_CUDA_OUT)/libcuda.so:
	@:

fake-cuda:
	@echo "fake_cuda: no cuda.h under CUDA_HOME='$(CUDA_HOME)'; not built"

fake-cuda-check:
	@echo "SKIP fake_cuda (no cuda.h)"

endif

# Do not let this fragment choose the includer's default goal.
.DEFAULT_GOAL := $(fake_cuda_saved_goal)
