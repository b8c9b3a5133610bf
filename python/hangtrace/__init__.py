# SPDX-License-Identifier: MIT
"""hangtrace: finds why a distributed GPU job hangs at startup.

The wheel carries the command (hangtrace/bin/hangtrace) and the preload
library (hangtrace/lib/libhangtrace.so); this package only finds them. The
console script `hangtrace` and `python -m hangtrace` both exec the command,
so its pid, signals and exit status are the command's own.
"""
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def command():
    """The path of the hangtrace command of this installation."""
    return os.path.join(_HERE, "bin", "hangtrace")


def library():
    """The path of libhangtrace.so, for LD_PRELOAD (hangtrace --lib-path)."""
    return os.path.join(_HERE, "lib", "libhangtrace.so")


def main(argv=None):
    """Replaces this process with the command, given argv (sys.argv[1:])."""
    args = sys.argv[1:] if argv is None else list(argv)
    exe = command()
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(exe, [exe] + args)
    except OSError as e:
        sys.stderr.write("hangtrace: cannot run %s: %s\n" % (exe, e.strerror))
    return 127
