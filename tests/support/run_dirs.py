"""A run directory's parts as the end-to-end tests read them: the one run an output directory
holds, its records and its manifest."""
import json
import pathlib


def only_run_dir(out):
    dirs = [p for p in pathlib.Path(out).iterdir() if p.is_dir()]
    assert len(dirs) == 1, f"expected one run directory in {out}, found {dirs}"
    return dirs[0]


def records_of(run_dir):
    """The records of a run directory, or of one rank's directory in a run of several."""
    with open(run_dir / "records.jsonl") as f:
        return [json.loads(line) for line in f if line.strip()]


def manifest_of(run_dir):
    return json.loads((run_dir / "run.json").read_text())
