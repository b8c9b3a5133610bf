# SPDX-License-Identifier: MIT
# core test programs with extra link needs
PROG_LDLIBS_core_thrower := -lstdc++
# bigtls links libbigtls.so (1 MiB of static TLS) at build time.
PROG_LDLIBS_core_bigtls := -L$(B)/tests/core -lbigtls -Wl,-rpath,$(abspath $(B))/tests/core
$(B)/tests/core/bigtls: $(B)/tests/core/libbigtls.so
