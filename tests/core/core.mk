# SPDX-License-Identifier: MIT
# core test programs with extra link needs
PROG_LDLIBS_core_thrower := -lstdc++
