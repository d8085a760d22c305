#!/usr/bin/env python3
"""A throwaway PostgreSQL server from Debian's package, for the fleet-history tests: initdb in a
temporary directory, the server listening on a unix socket in it only (no TCP port), trust
authentication for the local socket. PostgreSQL refuses to run as root, so as root the server
runs as the `postgres` user, its directory owned by it.

  pg_server.py -- COMMAND...   starts a server, runs COMMAND with RAILGAUGE_TEST_PG_URL set to
                               the server's URL (postgresql:///postgres?host=DIR&user=postgres),
                               stops the server, exits with COMMAND's status

Exits 77 (CTest's SKIP_RETURN_CODE) with a message when the binaries are missing.
"""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

BIN = pathlib.Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))
SKIP = 77


def as_server_user(argv):
    if os.geteuid() != 0:
        return argv
    return ["runuser", "-u", "postgres", "--"] + argv


def start(root):
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
        shutil.chown(sock, "postgres")
    subprocess.run(as_server_user([str(BIN / "initdb"), "-D", str(data), "-U", "postgres",
                                   "--auth=trust", "-E", "UTF8", "--no-sync"]),
                   check=True, stdout=subprocess.DEVNULL, timeout=120)
    opts = f"-k {sock} -c listen_addresses='' -c fsync=off -c max_connections=50"
    subprocess.run(as_server_user([str(BIN / "pg_ctl"), "-D", str(data), "-o", opts,
                                   "-l", str(root / "server.log"), "-w", "-t", "60", "start"]),
                   check=True, stdout=subprocess.DEVNULL, timeout=90)
    return f"postgresql:///postgres?host={sock}&user=postgres", data


def stop(data):
    subprocess.run(as_server_user([str(BIN / "pg_ctl"), "-D", str(data), "-m", "immediate",
                                   "-w", "-t", "60", "stop"]),
                   stdout=subprocess.DEVNULL, timeout=90)


def main():
    if "--" not in sys.argv:
        print(__doc__, file=sys.stderr)
        return 2
    command = sys.argv[sys.argv.index("--") + 1:]
    if not (BIN / "initdb").exists() or not (BIN / "pg_ctl").exists():
        print(f"pg_server.py: SKIP: no PostgreSQL server binaries in {BIN} "
              "(apt-get install postgresql; scripts/setup.sh does)", file=sys.stderr)
        return SKIP
    root = pathlib.Path(tempfile.mkdtemp(prefix="rg-pg-"))
    os.chmod(root, 0o755)
    try:
        url, data = start(root)
        try:
            env = dict(os.environ, RAILGAUGE_TEST_PG_URL=url)
            return subprocess.run(command, env=env, timeout=1200).returncode
        finally:
            stop(data)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
