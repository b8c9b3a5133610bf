# SPDX-License-Identifier: MIT
# nccl.mk: link flags of the NCCL family's test programs (tests/nccl). Most
# link the fake libnccl.so.2 (tests/fake_nccl); real_nccl links the real
# NCCL when one is installed (else the fake, and real_nccl.sh skips);
# libtorch_cuda.so is also built with NCCL exported, into exported/.

NCCL_T := $(B)/tests/nccl
NCCL_FAKE_LINK := -L$(abspath $(FAKE_NCCL_OUT)) -lnccl -Wl,-rpath,$(abspath $(FAKE_NCCL_OUT))
NCCL_REAL_LIB := $(firstword $(wildcard $(CUDA_HOME)/lib/libnccl.so.2 $(CUDA_HOME)/lib64/libnccl.so.2 \
	/usr/lib/x86_64-linux-gnu/libnccl.so.2 /usr/lib/aarch64-linux-gnu/libnccl.so.2))

PROG_LDLIBS_nccl_nccl_job := $(NCCL_FAKE_LINK)
PROG_LDLIBS_nccl_libncclext := $(NCCL_FAKE_LINK)
NCCL_REAL_LINK := $(NCCL_REAL_LIB) -Wl,-rpath,$(dir $(NCCL_REAL_LIB))
PROG_LDLIBS_nccl_real_nccl := $(if $(NCCL_REAL_LIB),$(NCCL_REAL_LINK),$(NCCL_FAKE_LINK))
PROG_LDLIBS_nccl_bench_coll := -L$(abspath $(NCCL_T)) -lncclstub -Wl,-rpath,$(abspath $(NCCL_T))

$(NCCL_T)/nccl_job $(NCCL_T)/libncclext.so $(NCCL_T)/real_nccl: $(FAKE_NCCL_LINK)
$(NCCL_T)/bench_coll: $(NCCL_T)/libncclstub.so

# The framework with NCCL linked in and exported (not_observable.sh).
$(NCCL_T)/exported/libtorch_cuda.so: tests/nccl/libtorch_cuda.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -DEXPORT_NCCL -shared -fPIC -o $@ $<
$(NCCL_T)/framework: $(NCCL_T)/exported/libtorch_cuda.so
