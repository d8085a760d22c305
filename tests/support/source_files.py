"""The files of the source tree that the tree checks (tests/size_limits_test.py,
tests/layers_test.py) read: what git tracks, and new files it would track (not ignored), never a
build directory's. A walk of the whole tree once read build-sanitize/'s and build-softroce/'s
CMakeFiles/<version>/CompilerIdCXX/CMakeCXXCompilerId.cpp, CMake's own file, as a source over
the line limit; a checkout's build directories can have any name.

Without git (a source tarball, or git refusing the directory) the tree is walked instead, and a
directory that holds a CMakeCache.txt is a build directory, left out with all below it, as is
.git.
"""
import os
import pathlib
import subprocess


def _git_files(root):
    """The paths git lists under root, relative to it, or None when root is not the top of a git
    work tree that git will read."""
    try:
        top = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, check=True).stdout.strip()
        if pathlib.Path(top).resolve() != root:
            return None  # root is a folder inside another repository's tree, not a checkout
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return sorted({p for p in out.decode(errors="replace").split("\0") if p})


def _walked_files(root):
    found = []
    for here, dirs, files in os.walk(root):
        if "CMakeCache.txt" in files and pathlib.Path(here) != root:
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if d != ".git")
        rel = pathlib.Path(here).relative_to(root)
        found += [(rel / f).as_posix() for f in sorted(files)]
    return found


def source_files(root, under=None):
    """Sorted paths (relative to root, with /) of the source tree's files, or of those below the
    folder `under` (relative to root) when given."""
    root = pathlib.Path(root).resolve()
    listed = _git_files(root)
    if listed is None:
        listed = _walked_files(root)
    # A build directory git does not ignore (one named other than /build*/) is listed with its
    # CMakeCache.txt: everything below it is left out too.
    # (An in-source build's CMakeCache.txt, at the top, leaves the tree in.)
    build_dirs = tuple(p[:-len("CMakeCache.txt")] for p in listed
                       if p.endswith("/CMakeCache.txt"))
    prefix = under.rstrip("/") + "/" if under else ""
    return [p for p in listed
            if p.startswith(prefix) and not (build_dirs and p.startswith(build_dirs))
            and (root / p).is_file()]
