# SPDX-License-Identifier: MIT
# GNU make fragment for the fake NCCL (tests/fake_nccl). Include it from the top-level Makefile after
# B (build dir), CC and CUDA_HOME are set. It builds $(B)/tests/fake_nccl/libnccl.so.2 (+ libnccl.so
# symlink for -lnccl) against $(CUDA_HOME)/include/nccl.h when present, else against nccl_fallback.h,
# and the selftest programs; `make fake-nccl-check` runs selftest.sh. Defines FAKE_NCCL_LIB.

FAKE_NCCL_SRCDIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
FAKE_NCCL_OUT := $(B)/tests/fake_nccl
FAKE_NCCL_LIB := $(FAKE_NCCL_OUT)/libnccl.so.2
FAKE_NCCL_LINK := $(FAKE_NCCL_OUT)/libnccl.so
FAKE_NCCL_SELFTEST := $(FAKE_NCCL_OUT)/selftest
FAKE_NCCL_SHIM := $(FAKE_NCCL_OUT)/libfake_nccl_shim.so
FAKE_NCCL_ALL := $(FAKE_NCCL_LIB) $(FAKE_NCCL_LINK) $(FAKE_NCCL_SELFTEST) $(FAKE_NCCL_SHIM)

# Real header only if CUDA_HOME is non-empty and has both nccl.h and cuda_runtime.h (nccl.h needs it).
FAKE_NCCL_REAL_H := $(if $(strip $(CUDA_HOME)),$(and $(wildcard $(CUDA_HOME)/include/nccl.h),\
	$(wildcard $(CUDA_HOME)/include/cuda_runtime.h)))
FAKE_NCCL_INC := $(if $(FAKE_NCCL_REAL_H),-I$(CUDA_HOME)/include,-DFAKE_NCCL_USE_FALLBACK)
FAKE_NCCL_CFLAGS := -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -fPIC -pthread -O2 -g \
	-fno-omit-frame-pointer $(FAKE_NCCL_INC)

FAKE_NCCL_SRCS := $(addprefix $(FAKE_NCCL_SRCDIR)/,fake_nccl.c fake_nccl_boot.c fake_nccl_root.c)
FAKE_NCCL_HDRS := $(FAKE_NCCL_SRCDIR)/fake_nccl_internal.h $(FAKE_NCCL_SRCDIR)/nccl_fallback.h

# No -Bsymbolic: ncclBcast/ncclCommInitAll/enqueue must reach ncclBroadcast/ncclGetUniqueId/
# ncclCommGetAsyncError through the PLT, like real NCCL.
$(FAKE_NCCL_LIB): $(FAKE_NCCL_SRCS) $(FAKE_NCCL_HDRS) $(FAKE_NCCL_SRCDIR)/fake_nccl.mk
	@mkdir -p $(@D)
	$(CC) $(FAKE_NCCL_CFLAGS) -shared -Wl,-soname,libnccl.so.2 -o $@ $(FAKE_NCCL_SRCS)

$(FAKE_NCCL_LINK): $(FAKE_NCCL_LIB)
	ln -sf libnccl.so.2 $@

$(FAKE_NCCL_SELFTEST): $(FAKE_NCCL_SRCDIR)/selftest.c $(FAKE_NCCL_SRCDIR)/nccl_fallback.h $(FAKE_NCCL_LINK)
	$(CC) $(FAKE_NCCL_CFLAGS) -o $@ $< -L$(FAKE_NCCL_OUT) -lnccl -Wl,-rpath,'$$ORIGIN' -ldl

$(FAKE_NCCL_SHIM): $(FAKE_NCCL_SRCDIR)/selftest.c $(FAKE_NCCL_SRCDIR)/nccl_fallback.h
	@mkdir -p $(@D)
	$(CC) $(FAKE_NCCL_CFLAGS) -DFAKE_NCCL_SHIM -shared -o $@ $< -ldl

.PHONY: fake-nccl fake-nccl-check
fake-nccl: $(FAKE_NCCL_ALL)

fake-nccl-check: $(FAKE_NCCL_ALL)
	bash $(FAKE_NCCL_SRCDIR)/selftest.sh $(B)
