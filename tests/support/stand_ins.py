"""Stand-in programs for the script tests: a file written with `text` and made executable, put
where a test wants a fake nvidia-smi, ldd, nccl-tests or nvbandwidth."""
import os
import stat


def executable(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path
