#!/usr/bin/env python3
"""Predict published training runs through Calculon with railgauge's system file.

For each run of a published-runs table (results/published/h100_training_runs.json), write
Calculon's application and execution files, run Calculon with railgauge's calculon_system.json
(and at the low and high ends of the coefficients' 95 % intervals, from coefficients.json), and
with Calculon's own system file for comparison; print the predicted step time, tokens/s per GPU
and MFU beside the published figures, and what dominates the predicted step.

  calibrate_predict.py --table TABLE --system SYSTEM.json [--coefficients COEFFICIENTS.json]
                       [--reference-system CALCULON_SYSTEM.json] [--calculon DIR | --stats DIR]
                       [--run ID]... [--out DIR] [--json FILE]
                       [--attention RECORDS [--attention-backend flash|cudnn|efficient]]

--calculon is a checkout of calculon-ai/calculon (run as `python3 DIR/bin/calculon llm` with
DIR on PYTHONPATH); --stats reads Calculon's outputs already written by an earlier --out
(STATS/<run>.<system>.stats.json) instead of running it. Exit status: 0 written, 2 bad input.

The prediction is Calculon's batch time plus the output (logit) layer, which Calculon's model does
not have and the published FLOPs count: per micro-batch, its forward, activation-gradient and
weight-gradient GEMMs of (micro_batch x seq) x hidden x vocab / t, timed with the same system
file's matrix and mem1 tables as Calculon times a Linear (calculon/llm/layers.py at caa4b11:
flops / (peak x eff(flops)), bytes / (GBps x eff(bytes)), added in no_overlap mode, the larger in
roofline), once per micro-batch of the last pipeline stage.

With --attention (scripts/attention_rate.py's records of a GPU), a further column times each
run's seq x seq layers, which Calculon takes through HBM, at the fused attention measured at that
run's shape instead, the bubble shrinking with the blocks (predict_inputs.attention_measured_s).
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import predict_inputs  # noqa: E402

TIME_KEYS = ("fw_time", "bw_time", "optim_step_time", "recompute_time", "bubble_time",
             "tp_comm_exposed_time", "pp_comm_exposed_time", "dp_comm_exposed_time",
             "recomm_exposed_time", "fw_offload_exposed_time", "bw_offload_exposed_time")


class InputError(Exception):
    pass


def read_json(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise InputError(f"{what} {path}: {e}")


def run_calculon(python, calculon_dir, app, exe, system, stats_path):
    """Calculon's `llm` command on the three files; returns its stats or raises with its error."""
    work = stats_path.parent
    names = {}
    for kind, doc in (("app", app), ("exe", exe), ("system", system)):
        names[kind] = work / stats_path.name.replace(".stats.json", f".{kind}.json")
        names[kind].write_text(json.dumps(doc, indent=1) + "\n")
    env = dict(os.environ, PYTHONPATH=str(calculon_dir))
    cmd = [python, str(pathlib.Path(calculon_dir) / "bin" / "calculon"), "llm",
           str(names["app"]), str(names["exe"]), str(names["system"]), str(stats_path), "-l"]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    if done.returncode != 0 or not stats_path.exists():
        message = (done.stdout + done.stderr).strip().splitlines()
        raise RuntimeError(message[-1] if message else f"exit {done.returncode}")
    return json.loads(stats_path.read_text())


def stats_for(args, run, name, system):
    """Calculon's stats for one run and one system, run now or read from --stats."""
    app = predict_inputs.application(run)
    exe = predict_inputs.execution(run)
    if args.stats:
        path = pathlib.Path(args.stats) / f"{run['id']}.{name}.stats.json"
        if not path.exists():
            return None, f"no Calculon output {path}"
        # Calculon's output is of the system file it read, kept beside it: another --system
        # would be paired with stats it did not make (a prediction of one file beside the
        # "error, those fused" of another).
        used = path.with_name(f"{run['id']}.{name}.system.json")
        if used.exists() and json.loads(used.read_text()) != system:
            return None, (f"{path} was computed from {used.name}, not from this --system: "
                          f"run Calculon again (--calculon) or give the system file it read")
        return json.loads(path.read_text()), None
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        return run_calculon(args.python, args.calculon, app, exe, system,
                            out / f"{run['id']}.{name}.stats.json"), None
    except RuntimeError as e:
        return None, f"Calculon refused it: {e}"


def predict(run, stats, system, attention=None):
    """The prediction from Calculon's stats: step time with the logit layer, its parts; with
    `attention` (predict_inputs.read_attention), the step with its seq x seq layers timed at the
    fused attention measured instead."""
    logit_s = predict_inputs.logit_layer_time_s(run, system)
    step_s = stats["total_time"] + logit_s
    parts = {k: stats.get(k, 0.0) for k in TIME_KEYS}
    compute = sum(parts[k] for k in ("fw_time", "bw_time", "optim_step_time", "recompute_time"))
    comm = sum(parts[k] for k in ("tp_comm_exposed_time", "pp_comm_exposed_time",
                                  "dp_comm_exposed_time", "recomm_exposed_time"))
    figures = predict_inputs.throughput_figures(run, step_s)
    scores_s, fused_s = predict_inputs.score_layers_time_s(run, stats, system)
    if scores_s is None and attention is not None:
        figures["attention_missing"] = ("Calculon's output has no per-layer times (`calculon llm "
                                        "-l`): its seq x seq layers cannot be replaced")
    if scores_s is not None:
        # Calculon's bubble is (p - 1) chunks of forward and backward time: it shrinks with them.
        blocks_s = parts["fw_time"] + parts["bw_time"] + parts["recompute_time"]
        saved_s = (scores_s - fused_s) * (1 + parts["bubble_time"] / blocks_s)
        fused = predict_inputs.throughput_figures(run, step_s - saved_s)
        figures["fused_attention_tokens_per_s_per_gpu"] = fused["tokens_per_s_per_gpu"]
        if attention is not None:
            try:
                measured_s, how = predict_inputs.attention_measured_s(
                    run, attention["figures"], attention["backend"])
            except predict_inputs.InputError as e:  # this run's shape was not measured
                figures["attention_missing"] = str(e)
            else:
                saved_s = (scores_s - measured_s) * (1 + parts["bubble_time"] / blocks_s)
                step = predict_inputs.throughput_figures(run, step_s - saved_s)
                figures["attention_measured"] = dict(how, per_batch_s=measured_s, **step)
    figures.update({"calculon_total_s": stats["total_time"], "logit_s": logit_s,
                    "scores_s": scores_s, "scores_fused_s": fused_s,
                    "share": {"compute": compute / step_s, "logit": logit_s / step_s,
                              "scores": (scores_s / step_s) if scores_s is not None else None,
                              "bubble": parts["bubble_time"] / step_s,
                              "exposed_comm": comm / step_s},
                    "parts_s": parts})
    return figures


def systems_for(run, system, coefficients, reference):
    """The system files one run is predicted with, each named, with what was changed."""
    out = [("railgauge", predict_inputs.with_datatype(system, run, "railgauge"))]
    if coefficients is not None:
        for end in ("low", "high"):
            bound = predict_inputs.interval_end(system, coefficients, end)
            out.append((f"railgauge-{end}", predict_inputs.with_datatype(bound, run, "railgauge")))
    if reference is not None:
        out.append(("calculon", predict_inputs.with_datatype(reference, run, "calculon")))
    return out


def predict_run(run, args, system, coefficients, reference, attention=None):
    published = predict_inputs.published_figures(run)
    row = {"id": run["id"], "published": published, "predicted": {}, "errors": {}}
    for name, (sys_doc, _) in systems_for(run, system, coefficients, reference):
        stats, why = stats_for(args, run, name, sys_doc)
        if stats is None:
            row["errors"][name] = why
            continue
        p = predict(run, stats, sys_doc, attention)
        p["error"] = p["tokens_per_s_per_gpu"] / published["tokens_per_s_per_gpu"] - 1.0
        if "attention_measured" in p:
            m = p["attention_measured"]
            m["error"] = m["tokens_per_s_per_gpu"] / published["tokens_per_s_per_gpu"] - 1.0
        if "fused_attention_tokens_per_s_per_gpu" in p:
            p["fused_attention_error"] = (p["fused_attention_tokens_per_s_per_gpu"]
                                          / published["tokens_per_s_per_gpu"] - 1.0)
        row["predicted"][name] = p
    return row


def borrowed(node, path=""):
    """Every value of a coefficients file that calibrate took from another GPU's file (origin
    "borrowed"), as (path, value or None, source): a prediction on them rests on that GPU."""
    out = []
    if isinstance(node, dict):
        if node.get("origin") == "borrowed":
            out.append((path, node.get("value"), node.get("source", "borrowed")))
        for key, child in node.items():
            out += borrowed(child, f"{path}.{key}" if path else key)
    elif isinstance(node, list):
        for i, child in enumerate(node):
            out += borrowed(child, f"{path}[{i}]")
    return out


def attention_assumptions(attention):
    """What a prediction with the attention measured rests on, for the top of the output."""
    if attention is None:
        return []
    figures = attention["figures"]
    which = (f"its {attention['backend']} backend" if attention["backend"]
             else "the fastest of its backends at each shape (named in the column)")
    return [f"the 'error, attention measured' column: Calculon's seq x seq layers (its two score "
            f"matmuls, softmax and dropout, forward, recomputed forward and backward) replaced "
            f"by torch {', '.join(figures['torch'])} scaled_dot_product_attention, causal, bf16, "
            f"{which}, measured on {', '.join(figures['gpus'])} by scripts/attention_rate.py at "
            f"each run's shape (the median over its rounds), the bubble scaled with the blocks; "
            f"that the published runs ran a fused attention of that rate is assumed",
            "attention in bf16 on the FP8 runs too (Transformer Engine's default: its FP8 "
            "recipe leaves the attention's matmuls in bf16 unless fp8_dpa is set)"]


def assumptions(table, runs, system, coefficients, reference, attention=None):
    """Every assumption the predictions rest on, for the top of the output."""
    lines = list(predict_inputs.GLOBAL_ASSUMPTIONS) + attention_assumptions(attention)
    if coefficients is None:
        lines.append("no coefficients file: no interval")
    for run in runs:
        for name, (doc, changed) in systems_for(run, system, None, reference):
            for c in changed:
                lines.append(f"{run['dtype']} on the {name} file: {c}")
    for key, value in ((coefficients or {}).get("assumptions") or {}).items():
        lines.append(f"railgauge file: {key} = {value}, given to `railgauge calibrate` with "
                     f"--assume (fit_report.md, \"Not measured\")")
    for path, value, source in borrowed(coefficients or {}):
        shown = "" if value is None else f" = {value}"
        lines.append(f"railgauge file: {path}{shown}, {source} (`railgauge calibrate --borrow`)")
    seen, out = set(), []
    for line in lines:
        if line not in seen:
            seen.add(line)
            out.append(line)
    per_run, by_source = {}, {}
    for run in runs:
        by_source.setdefault(run["source"], []).append(run["id"])
        for field, why in run.get("assumed", {}).items():
            per_run.setdefault((field, why), []).append(run)
    for (field, why), owners in per_run.items():
        ids = [r["id"] for r in owners]
        sources = {r["source"] for r in owners}
        if len(sources) == 1 and ids == by_source[owners[0]["source"]]:
            where = f"every run from {owners[0]['source']}"
        else:
            where = ", ".join(ids)
        out.append(f"{field} = {why} [{where}]")
    return out


def fmt_share(x):
    return "-" if x is None else f"{100 * x:.0f} %"


def fmt_share_pct(x):
    return "-" if x is None else fmt_pct(x)


def fmt_pct(x):
    return f"{100 * x:+.1f} %"


def fmt_attention(row, name):
    """The error with the attention measured, its backend and interval, or '-'."""
    p = row["predicted"][name].get("attention_measured")
    if p is None:
        return row["predicted"][name].get("attention_missing", "-")
    lo = (row["predicted"].get(f"{name}-low") or {}).get("attention_measured")
    hi = (row["predicted"].get(f"{name}-high") or {}).get("attention_measured")
    interval = f", {fmt_pct(lo['error'])} to {fmt_pct(hi['error'])}" if lo and hi else ""
    return f"{fmt_pct(p['error'])} ({p['backend']}{interval})"


def print_report(rows, notes, out):
    out.write("Assumed (not measured, not stated by the source):\n")
    for n in notes:
        out.write(f"  - {n}\n")
    out.write("\n| run | GPUs | dtype | published tok/s/GPU (step s, MFU) | system | predicted "
              "tok/s/GPU (step s, MFU) | error | interval | compute / bubble / exposed comm / "
              "logit | seq x seq layers | error, those fused | error, attention measured |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    for row in rows:
        pub = row["published"]
        head = (f"| {row['id']} | {pub['gpus']} | {pub['dtype']} | "
                f"{pub['tokens_per_s_per_gpu']:.0f} ({pub['step_s']:.3f}, "
                f"{100 * pub['mfu']:.1f} %) |")
        for name in ("railgauge", "calculon"):
            if name in row["errors"]:
                out.write(f"{head} {name} | {row['errors'][name]} | | | | | | |\n")
                continue
            p = row["predicted"].get(name)
            if p is None:
                continue
            interval = ""
            lo, hi = row["predicted"].get(f"{name}-low"), row["predicted"].get(f"{name}-high")
            if lo and hi:
                interval = f"{fmt_pct(lo['error'])} to {fmt_pct(hi['error'])}"
            s = p["share"]
            out.write(f"{head} {name} | {p['tokens_per_s_per_gpu']:.0f} ({p['step_s']:.3f}, "
                      f"{100 * p['mfu']:.1f} %) | {fmt_pct(p['error'])} | {interval} | "
                      f"{100 * s['compute']:.0f} / {100 * s['bubble']:.0f} / "
                      f"{100 * s['exposed_comm']:.0f} / {100 * s['logit']:.0f} % | "
                      f"{fmt_share(s['scores'])} | "
                      f"{fmt_share_pct(p.get('fused_attention_error'))} | "
                      f"{fmt_attention(row, name)} |\n")


def predict_one(run, args, system, coefficients, reference, attention):
    """predict_run, a field the table or a system file lacks said as bad input, not a
    traceback."""
    try:
        return predict_run(run, args, system, coefficients, reference, attention)
    except (KeyError, TypeError, IndexError) as e:
        raise InputError(f"{run.get('id', 'a run') if isinstance(run, dict) else 'a run'}: "
                         f"the published-runs table ({args.table}) or a system file lacks or "
                         f"mistypes a field it needs ({type(e).__name__}: {e})")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table", required=True)
    ap.add_argument("--system", required=True)
    ap.add_argument("--coefficients")
    ap.add_argument("--reference-system")
    ap.add_argument("--calculon")
    ap.add_argument("--python", default=sys.executable,
                    help="the Python that runs Calculon (one with numpy, pandas, psutil)")
    ap.add_argument("--stats")
    ap.add_argument("--run", action="append", default=[])
    ap.add_argument("--out", default="predict-out")
    ap.add_argument("--json")
    ap.add_argument("--attention", help="scripts/attention_rate.py's records (a records.jsonl "
                    "or a directory holding them): the runs' attention timed at those rates too")
    ap.add_argument("--attention-backend", choices=("flash", "cudnn", "efficient"),
                    help="the SDPA backend whose records stand for the runs' attention "
                         "(default: the fastest measured at each shape)")
    args = ap.parse_args(argv)
    try:
        if bool(args.calculon) == bool(args.stats):
            raise InputError("give --calculon DIR (a Calculon checkout) or --stats DIR "
                             "(Calculon's outputs of an earlier --out), one of the two")
        table = read_json(args.table, "published-runs table")
        system = read_json(args.system, "system file")
        coefficients = (read_json(args.coefficients, "coefficients file")
                        if args.coefficients else None)
        reference = (read_json(args.reference_system, "reference system file")
                     if args.reference_system else None)
        runs = predict_inputs.select_runs(table, args.run)
        attention = None
        if args.attention:
            attention = {"figures": predict_inputs.read_attention(args.attention),
                         "backend": args.attention_backend}
        elif args.attention_backend:
            raise InputError("--attention-backend chooses among --attention's records: give "
                             "--attention too")
        rows = [predict_one(r, args, system, coefficients, reference, attention) for r in runs]
        report_assumptions = assumptions(table, runs, system, coefficients, reference, attention)
    except (InputError, predict_inputs.InputError) as e:
        sys.stderr.write(f"calibrate_predict: {e}\n")
        return 2
    print_report(rows, report_assumptions, sys.stdout)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
