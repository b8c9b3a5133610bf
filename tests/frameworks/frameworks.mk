# SPDX-License-Identifier: MIT
# frameworks.mk: mpi_loop is built with mpicc's own flags (Open MPI's
# include and library paths). Without mpicc or its mpi.h (Debian's
# libopenmpi-dev, scripts/deps.sh test) it builds without MPI and says
# SKIP when run.
MPICC_COMPILE := $(shell mpicc --showme:compile 2>/dev/null)
MPICC_LINK := $(shell mpicc --showme:link 2>/dev/null)
MPI_H := $(firstword $(foreach d,$(patsubst -I%,%,$(filter -I%,$(MPICC_COMPILE))),$(wildcard $(d)/mpi.h)))
PROG_LDLIBS_frameworks_mpi_loop := $(if $(MPI_H),-DHT_HAVE_MPI $(MPICC_COMPILE) $(MPICC_LINK))
