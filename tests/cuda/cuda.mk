# SPDX-License-Identifier: MIT
# cuda.mk: link flags of the CUDA family's test programs. The runtime and
# the fake driver are linked only where the toolkit is installed; without
# it the programs build with weak references and report SKIP. The
# references are weak, so --as-needed would drop the library: not here.
PROG_LDLIBS_cuda_cudart_probe := $(if $(FAKE_CUDA_CUDART_DIR),-L$(FAKE_CUDA_CUDART_DIR) \
	-Xlinker --no-as-needed -lcudart)
PROG_LDLIBS_cuda_linked := $(if $(FAKE_CUDA_LIB),-L$(dir $(FAKE_CUDA_LIB)) \
	-Xlinker --no-as-needed -l:libcuda.so.1)
$(B)/tests/cuda/linked: $(FAKE_CUDA_LIB)
