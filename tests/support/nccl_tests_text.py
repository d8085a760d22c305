"""nccl-tests text output as a test changes it: its rows' figures edited, its `# Avg bus bandwidth`
made again the mean of the busbw printed above it, as nccl-tests computes it, so that the import
reads the changed log as nccl-tests would have printed it (it refuses a run whose rows disagree
with their average: rows lost or changed in the middle)."""


def with_averages(text):
    """`text` with each run's average bus bandwidth recomputed from the rows above it."""
    out, busbw_at, values = [], [], []
    for line in text.splitlines():
        body = line.strip()
        if body.startswith("#"):
            words = body[1:].split()
            if words[:3] == ["size", "count", "type"] and "busbw" in words:
                busbw_at = [i for i, w in enumerate(words) if w == "busbw"]
                values = []
            elif "Avg bus bandwidth" in body and values:
                line = f"{line[:line.index(':') + 1]} {sum(values) / len(values):g} "
                values = []
        else:
            words = body.split()
            if words and words[0].isdigit() and busbw_at and len(words) > max(busbw_at):
                values += [float(words[i]) for i in busbw_at]
        out.append(line)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")
