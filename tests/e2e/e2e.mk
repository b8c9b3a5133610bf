# SPDX-License-Identifier: MIT
# e2e.mk: the end-to-end scripts also run the demo's rank program
# (examples/demo/train, on the fake driver and fake NCCL).
it test: $(if $(FAKE_CUDA_LIB),$(B)/examples/demo/train)
