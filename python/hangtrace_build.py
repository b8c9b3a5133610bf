# SPDX-License-Identifier: MIT
"""hangtrace_build: the package's build backend (PEP 517) and the packer
behind `make wheel`. It needs nothing from PyPI.

As a backend (pip install hangtrace-<version>.tar.gz, or pip install . in
the tree), build_wheel checks first that the system has what the C build
needs, and names the Debian and RPM packages of what it lacks; then it runs
`make lib cli` into a fresh folder with the system's compiler and packs the
command and the library with the small Python package of python/hangtrace.
That wheel uses the host's jansson and libunwind (tag linux_<arch>).

From the command line, for scripts/wheel.sh (make wheel):
    hangtrace_build.py wheel BUILD_DIR OUT_DIR [--vendor]
packs what BUILD_DIR holds; --vendor adds the host's libunwind beside the
library (it is dlopened, so no tool would find it) and the licences of
every library the wheel will carry; auditwheel then grafts the rest.
    hangtrace_build.py sdist OUT_DIR
writes the source archive.

The version is read from the file VERSION, as the Makefile reads it.
"""
import base64
import hashlib
import io
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = "hangtrace"
SUMMARY = ("Finds why a distributed GPU training job hangs at startup: "
           "which rank, in which phase, why, and what to change")
# What the C build of the library and the command reads: the sdist's content.
SDIST_PATHS = ["Makefile", "VERSION", "README.md", "pyproject.toml",
               "include", "src", "hooks", "scripts", "python"]
# Libraries every Linux system has (the manylinux base): never carried.
# (libz.so: the manylinux policy counts it as the host's, and auditwheel
# does not carry it)
BASE_LIBS = ("linux-vdso.so", "linux-gate.so", "ld-linux", "libc.so", "libm.so",
             "libdl.so", "libpthread.so", "librt.so", "libgcc_s.so", "libz.so")
ELF_MODE = 0o755
FILE_MODE = 0o644


def version():
    with open(os.path.join(ROOT, "VERSION")) as f:
        return f.read().strip()


def say(msg):
    sys.stderr.write("hangtrace: %s\n" % msg)
    sys.stderr.flush()


# ---- what the build needs -------------------------------------------------

def _cc():
    """The compiler's words, as make reads $(CC) (it may carry flags)."""
    return shlex.split(os.environ.get("CC") or "cc")


def _pkg_config(*args, pkg="jansson"):
    try:
        r = subprocess.run(["pkg-config"] + list(args) + [pkg],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           universal_newlines=True)
    except OSError:
        return []
    return r.stdout.split() if r.returncode == 0 else []


def _compiles(source, link=False, pkg="jansson", lib="-ljansson"):
    """True when the compiler preprocesses (or builds and links with pkg,
    else lib) source."""
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "probe.c")
        with open(src, "w") as f:
            f.write(source)
        cmd = _cc() + _pkg_config("--cflags", pkg=pkg)
        if link:
            cmd += [src, "-o", os.path.join(d, "probe")] + (_pkg_config("--libs", pkg=pkg)
                                                            or [lib])
        else:
            cmd += ["-E", src, "-o", os.path.join(d, "probe.i")]
        try:
            return subprocess.run(cmd, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL).returncode == 0
        except OSError:
            return False


# (what is missing, how to see it, its Debian package, its RPM package)
NEEDS = [
    ("a C compiler (%s)" % " ".join(_cc()), lambda: shutil.which(_cc()[0]) is not None,
     "gcc", "gcc"),
    ("make", lambda: shutil.which("make") is not None, "make", "make"),
    ("the libunwind headers (libunwind.h)",
     lambda: _compiles("#include <libunwind.h>\n"), "libunwind-dev", "libunwind-devel"),
    ("the jansson headers and library (jansson.h, -ljansson)",
     lambda: _compiles("#include <jansson.h>\n"
                       "int main(void) { json_decref(json_object()); return 0; }\n", link=True),
     "libjansson-dev", "jansson-devel"),
    # (the command's digests: src/cli/report/read/dgcodec.c)
    ("the zlib headers and library (zlib.h, -lz)",
     lambda: _compiles("#include <zlib.h>\n"
                       "int main(void) { return zlibVersion() == 0; }\n", link=True,
                       pkg="zlib", lib="-lz"),
     "zlib1g-dev", "zlib-devel"),
    ("the libsodium headers and library (sodium.h, -lsodium)",
     lambda: _compiles("#include <sodium.h>\n"
                       "int main(void) { return sodium_init() < 0; }\n", link=True,
                       pkg="libsodium", lib="-lsodium"),
     "libsodium-dev", "libsodium-devel"),
]


def check_needs():
    """Exits with the packages to install when something is missing."""
    missing = [n for n in NEEDS if not n[1]()]
    if not missing:
        return
    say("cannot build from source: missing %s" % "; ".join(m[0] for m in missing))
    say("on Debian or Ubuntu:        sudo apt-get install -y %s" % " ".join(m[2] for m in missing))
    say("on RHEL, Rocky or Fedora:   sudo dnf install -y %s%s" % (
        " ".join(m[3] for m in missing),
        "   (libunwind-devel: from EPEL on RHEL and Rocky)"
        if any(m[3] == "libunwind-devel" for m in missing) else ""))
    say("then run pip again (or install the wheel that `make wheel` builds: it needs none of them)")
    raise SystemExit(1)


def make(build_dir):
    jobs = str(min(os.cpu_count() or 1, 8))
    cmd = ["make", "-C", ROOT, "-j" + jobs, "B=" + build_dir, "NO_DEPS=1", "WERROR=", "lib", "cli"]
    say("building: " + " ".join(cmd))
    # The compiler's lines go to stderr: pip shows them when the build fails.
    r = subprocess.run(cmd, stdout=sys.stderr)
    if r.returncode != 0:
        say("make failed (exit %d); the compiler's messages are above" % r.returncode)
        raise SystemExit(1)


# ---- licences of the libraries carried -----------------------------------

def _ldd(path):
    """{soname: resolved path} of what path needs, past the base system."""
    r = subprocess.run(["ldd", path], stdout=subprocess.PIPE, universal_newlines=True)
    out = {}
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] == "=>" and parts[2].startswith("/"):
            if not parts[0].startswith(BASE_LIBS):
                out[parts[0]] = parts[2]
    return out


def _owner_files(path):
    """The licence files of the system package that owns path."""
    cands = [path, os.path.realpath(path)]
    cands += [c[4:] if c.startswith("/usr/") else "/usr" + c for c in list(cands)]
    for c in cands:
        if shutil.which("dpkg-query"):
            r = subprocess.run(["dpkg-query", "-S", c], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, universal_newlines=True)
            if r.returncode == 0:
                pkg = r.stdout.split(":")[0]
                f = "/usr/share/doc/%s/copyright" % pkg
                if os.path.isfile(f):
                    return [f]
        if shutil.which("rpm"):
            r = subprocess.run(["rpm", "-qf", "--qf", "%{NAME}\n", c], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, universal_newlines=True)
            if r.returncode == 0:
                pkg = r.stdout.split()[0]
                r = subprocess.run(["rpm", "-qL", pkg], stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, universal_newlines=True)
                files = [f for f in r.stdout.split() if os.path.isfile(f)]
                if files:
                    return files
    return []


def _stem(soname):
    return soname.split(".so")[0]


def vendored(build_dir):
    """[(arcname, source path, mode)]: the host's libunwind beside the
    library, and the licence of every library outside the base system that
    the wheel carries (what auditwheel grafts too), under
    dist-info/licenses/<name>/."""
    r = subprocess.run(_cc() + ["-print-file-name=libunwind.so.8"], stdout=subprocess.PIPE,
                       universal_newlines=True)
    unwind = r.stdout.strip()
    if r.returncode != 0 or not os.path.isabs(unwind) or not os.path.isfile(unwind):
        say("cannot find the host's libunwind.so.8 to carry (install libunwind-dev)")
        raise SystemExit(1)
    libs = {"libunwind.so.8": unwind}
    libs.update(_ldd(unwind))
    libs.update(_ldd(os.path.join(build_dir, "hangtrace")))
    libs.update(_ldd(os.path.join(build_dir, "libhangtrace.so")))
    files = [("%s/lib/libunwind.so.8" % NAME, os.path.realpath(unwind), ELF_MODE)]
    info = "%s-%s.dist-info" % (NAME, version())
    for soname, path in sorted(libs.items()):
        lic = _owner_files(path)
        if not lic:
            say("cannot find the licence of %s (%s): no dpkg or rpm package owns it" % (soname, path))
            raise SystemExit(1)
        for f in lic:
            files.append(("%s/licenses/%s/%s" % (info, _stem(soname), os.path.basename(f)), f,
                          FILE_MODE))
    return files


# ---- the wheel ------------------------------------------------------------

def metadata():
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    return ("Metadata-Version: 2.1\n"
            "Name: %s\n"
            "Version: %s\n"
            "Summary: %s\n"
            "License: MIT\n"
            "Requires-Python: >=3.6\n"
            "Classifier: Operating System :: POSIX :: Linux\n"
            "Classifier: Programming Language :: C\n"
            "Classifier: Topic :: System :: Distributed Computing\n"
            "Description-Content-Type: text/markdown\n"
            "\n%s" % (NAME, version(), SUMMARY, readme))


def platform_tag():
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


def _record_line(arc, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d\n" % (arc, digest, len(data))


def _zip_add(z, arc, data, mode):
    zi = zipfile.ZipInfo(arc, date_time=time.gmtime(int(os.environ.get(
        "SOURCE_DATE_EPOCH", "315532800")))[:6])
    zi.external_attr = (0o100000 | mode) << 16
    zi.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(zi, data)


def pack_wheel(build_dir, out_dir, vendor=False):
    """Writes the wheel of what build_dir holds into out_dir; its file name."""
    v = version()
    info = "%s-%s.dist-info" % (NAME, v)
    tag = "py3-none-" + platform_tag()
    pkg = os.path.join(ROOT, "python", NAME)
    files = [("%s/%s" % (NAME, f), os.path.join(pkg, f), FILE_MODE)
             for f in sorted(os.listdir(pkg)) if f.endswith(".py")]
    files += [("%s/bin/hangtrace" % NAME, os.path.join(build_dir, "hangtrace"), ELF_MODE),
              ("%s/lib/libhangtrace.so" % NAME, os.path.join(build_dir, "libhangtrace.so"),
               ELF_MODE)]
    if vendor:
        files += vendored(build_dir)
    texts = [(info + "/METADATA", metadata()),
             (info + "/WHEEL", "Wheel-Version: 1.0\nGenerator: hangtrace_build\n"
              "Root-Is-Purelib: false\nTag: %s\n" % tag),
             (info + "/entry_points.txt", "[console_scripts]\nhangtrace = hangtrace:main\n"),
             (info + "/top_level.txt", NAME + "\n")]
    name = "%s-%s-%s.whl" % (NAME, v, tag)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, name)
    record = io.StringIO()
    with zipfile.ZipFile(path + ".tmp", "w") as z:
        for arc, src, mode in files:
            with open(src, "rb") as f:
                data = f.read()
            _zip_add(z, arc, data, mode)
            record.write(_record_line(arc, data))
        for arc, text in texts:
            data = text.encode()
            _zip_add(z, arc, data, FILE_MODE)
            record.write(_record_line(arc, data))
        record.write(info + "/RECORD,,\n")
        _zip_add(z, info + "/RECORD", record.getvalue().encode(), FILE_MODE)
    os.replace(path + ".tmp", path)
    return name


# ---- the sdist ------------------------------------------------------------

def _source_files():
    """The sdist's files, relative to ROOT: git's view in a checkout (tracked
    and new files, none that .gitignore names), else every file there."""
    if os.path.exists(os.path.join(ROOT, ".git")) and shutil.which("git"):
        r = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "--cached", "--others",
                            "--exclude-standard", "--"] + SDIST_PATHS,
                           stdout=subprocess.PIPE)
        if r.returncode == 0:
            return sorted(set(f for f in r.stdout.decode().split("\0")
                              if f and os.path.isfile(os.path.join(ROOT, f))))
    out = []
    for p in SDIST_PATHS:
        full = os.path.join(ROOT, p)
        if os.path.isfile(full):
            out.append(p)
        for d, dirs, names in os.walk(full):
            dirs[:] = [x for x in dirs if x != "__pycache__"]
            out += [os.path.relpath(os.path.join(d, n), ROOT) for n in names]
    return sorted(out)


def pack_sdist(out_dir):
    base = "%s-%s" % (NAME, version())
    name = base + ".tar.gz"
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, name)
    with tarfile.open(path + ".tmp", "w:gz", format=tarfile.PAX_FORMAT) as t:
        for rel in _source_files():
            t.add(os.path.join(ROOT, rel), arcname=base + "/" + rel, recursive=False)
        data = metadata().encode()
        ti = tarfile.TarInfo(base + "/PKG-INFO")
        ti.size, ti.mode, ti.mtime = len(data), FILE_MODE, int(time.time())
        t.addfile(ti, io.BytesIO(data))
    os.replace(path + ".tmp", path)
    return name


# ---- PEP 517 --------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    check_needs()
    with tempfile.TemporaryDirectory(prefix="hangtrace-build.") as b:
        make(b)
        return pack_wheel(b, wheel_directory)


def build_sdist(sdist_directory, config_settings=None):
    return pack_sdist(sdist_directory)


def _main(argv):
    if len(argv) >= 3 and argv[0] == "wheel":
        print(pack_wheel(os.path.abspath(argv[1]), argv[2], vendor="--vendor" in argv[3:]))
    elif len(argv) == 2 and argv[0] == "sdist":
        print(pack_sdist(argv[1]))
    else:
        sys.stderr.write("usage: hangtrace_build.py wheel BUILD_DIR OUT_DIR [--vendor]\n"
                         "       hangtrace_build.py sdist OUT_DIR\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
