#!/bin/sh
# SPDX-License-Identifier: MIT
# An MPI (or NCCL-over-MPI) job under hangtrace: ranks come from Open MPI's
# OMPI_COMM_WORLD_* variables. --on-stall abort makes a rank that stays two
# minutes in one startup phase dump and abort, so mpirun tears the job down
# instead of burning GPU hours.
#     examples/mpirun.sh ./a.out [ARGS...]
set -eu
dir=${HANGTRACE_DIR:-$PWD/ht-mpi-$$}
mpirun -np "${NP:-8}" hangtrace run --dir "$dir" --timeout 120 --on-stall abort -- "$@" || true
hangtrace report "$dir"
