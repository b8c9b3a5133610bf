# SPDX-License-Identifier: MIT
# trust test programs with extra link needs
PROG_LDLIBS_trust_static_hello := -static
PROG_LDLIBS_trust_churn := -ldl
