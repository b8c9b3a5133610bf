# SPDX-License-Identifier: MIT
"""`python -m hangtrace ARGS` is `hangtrace ARGS`."""
import sys

from hangtrace import main

sys.exit(main())
