"""Calculon's inputs for a published run, and the figures it is compared on.

Used by scripts/calibrate_predict.py; no Calculon needed here. The field names of the
application and execution files are Calculon's (calculon-ai/calculon caa4b11,
calculon/llm/llm.py, Llm.Application and Llm.Execution.fields()).
"""
import copy
import json
import os
import statistics

# H100 SXM dense peaks, TFLOP/s: results/peaks/gpu_peaks.yaml line 35.
PEAK_TFLOPS = {"bf16": 989.0, "fp8": 1979.0}
CALCULON_DTYPE = {"bf16": "bfloat16", "fp8": "float8"}
BYTES = {"bfloat16": 2, "float16": 2, "float8": 1}

GLOBAL_ASSUMPTIONS = (
    "the output (logit) layer, which Calculon does not model, is timed with the system file's "
    "own matrix and mem1 tables as Calculon times a Linear, and added once per micro-batch "
    "of the last pipeline stage (its share of the pipeline bubble is left out)",
    "fused (flash) attention is modelled as Calculon's activation_recompute 'attn_only': "
    "Calculon has no fused attention; that mode stores no seq x seq tensor and recomputes the "
    "attention scores in the backward, as a fused kernel does, but still counts the softmax "
    "and dropout memory traffic of the scores",
    "tensor-parallel communication overlap (Megatron's --tp-comm-overlap) is Calculon's "
    "tensor_par_overlap 'ring'",
    "the sequence-parallel all-gather is not done again in the backward (Calculon's "
    "seq_par_ag_redo false), though Megatron-LM's own layers gather their input again there "
    "(megatron/core/tensor_parallel/layers.py, LinearWithGradAccumulationAndAsyncCommunication"
    ".backward, at 000c4ac): with it, every step predicted here is 0.0-0.4 % longer (Calculon "
    "caa4b11, all four system files, 2026-12-02)",
    "tensor parallelism on networks[0] (NVLink, 8 GPUs), pipeline and data parallelism on "
    "networks[1] (the fabric, per GPU): every layout here keeps t <= 8 inside a node",
    "GeLU fused into its GEMM (Calculon's fused_activation true)",
    "published tokens/s per GPU, where the source gives teraFLOP/s only, is teraFLOP/s over "
    "Megatron-LM's FLOPs per token (megatron/training/training.py lines 73-108 at f2e5db4); "
    "predicted MFU uses the same FLOPs over the H100 SXM dense peak (989 BF16, 1979 FP8)",
)


class InputError(Exception):
    pass


def select_runs(table, ids):
    runs = table.get("runs")
    if not isinstance(runs, list) or not runs:
        raise InputError("the table has no 'runs' list")
    if not ids:
        return runs
    by_id = {r["id"]: r for r in runs}
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise InputError(f"no run {', '.join(missing)} in the table (it has: "
                         f"{', '.join(by_id)})")
    return [by_id[i] for i in ids]


def application(run):
    m = run["model"]
    return {"hidden": m["hidden"], "feedforward": m["feedforward"], "seq_size": m["seq_size"],
            "attn_heads": m["attn_heads"], "attn_size": m["attn_size"],
            "num_blocks": m["num_blocks"]}


def execution(run):
    lay = run["layout"]
    t, p, d = lay["tensor_par"], lay["pipeline_par"], lay["data_par"]
    if t * p * d != run["gpus"]:
        raise InputError(f"{run['id']}: t {t} x p {p} x d {d} is not its {run['gpus']} GPUs")
    recompute = lay["recompute"]
    if recompute == "none" and lay.get("flash_attention"):
        recompute = "attn_only"
    return {
        "num_procs": run["gpus"], "tensor_par": t, "pipeline_par": p, "data_par": d,
        "tensor_par_net": 0, "pipeline_par_net": 1, "data_par_net": 1,
        "batch_size": lay["global_batch"], "microbatch_size": lay["micro_batch"],
        "datatype": CALCULON_DTYPE[run["dtype"]], "fused_activation": True,
        "attention_type": "multihead", "activation_recompute": recompute,
        "pipeline_interleaving": lay["virtual_pipeline"],
        "optimizer_sharding": bool(lay["distributed_optimizer"]) and d > 1,
        "tensor_par_comm_type": "rs_ag" if lay["sequence_parallel"] and t > 1 else "ar",
        "tensor_par_overlap": "ring" if lay["tp_comm_overlap"] and t > 1 else "none",
        "seq_par_ag_redo": False,
        "data_par_overlap": bool(lay["dp_overlap"]) and d > 1,
        "weight_offload": False, "activations_offload": False, "optimizer_offload": False,
        "training": True,
    }


def megatron_flops_per_token(model):
    """Megatron-LM's num_floating_point_operations (training.py lines 73-108 at f2e5db4) over
    batch x seq: multi-head attention, no SwiGLU, no experts."""
    h, l, s = model["hidden"], model["num_blocks"], model["seq_size"]
    qproj = model["attn_heads"] * model["attn_size"] / h
    attention = (1 + 1 + s / h) * qproj
    mlp = model["feedforward"] / h
    logit = model["vocab"] / (2 * l * h)
    return 12 * l * h * h * (attention + mlp + logit)


def published_figures(run):
    pub, model, lay = run["published"], run["model"], run["layout"]
    per_token = megatron_flops_per_token(model)
    if "tokens_per_s_per_gpu" in pub:
        tokens = float(pub["tokens_per_s_per_gpu"])
        how = "stated"
    else:
        tokens = pub["per_gpu_tflops"] * 1e12 / per_token
        how = "per-GPU teraFLOP/s over Megatron-LM's FLOPs per token"
    if "mfu" in pub:
        mfu = pub["mfu"]
    elif "model_tflops_per_gpu" in pub:
        mfu = pub["model_tflops_per_gpu"] / PEAK_TFLOPS[run["dtype"]]
    else:
        mfu = tokens * per_token / (PEAK_TFLOPS[run["dtype"]] * 1e12)
    # A figure in other units (FLOP/s for TFLOP/s, tokens per step for per second) once gave a
    # silent -100 % error: the tokens must give the MFU the source states, to its rounding.
    implied = tokens * per_token / (PEAK_TFLOPS[run["dtype"]] * 1e12)
    if not 0 < mfu <= 1 or abs(implied / mfu - 1) > 0.05:
        raise InputError(
            f"{run['id']}: its published figures disagree: {tokens:.6g} tokens/s per GPU x "
            f"{per_token:.4g} FLOPs per token is {implied:.3g} of the {run['dtype']} peak, its MFU "
            f"{mfu:.3g}; check each figure's unit (tokens/s per GPU, teraFLOP/s per GPU, MFU as "
            "a fraction)")
    step = lay["global_batch"] * model["seq_size"] / (tokens * run["gpus"])
    return {"gpus": run["gpus"], "dtype": run["dtype"], "tokens_per_s_per_gpu": tokens,
            "step_s": step, "mfu": mfu, "tokens_from": how}


def throughput_figures(run, step_s):
    model, lay = run["model"], run["layout"]
    tokens = lay["global_batch"] * model["seq_size"] / (step_s * run["gpus"])
    mfu = tokens * megatron_flops_per_token(model) / (PEAK_TFLOPS[run["dtype"]] * 1e12)
    return {"step_s": step_s, "tokens_per_s_per_gpu": tokens, "mfu": mfu}


def step_lookup(rows, x):
    """Calculon's step tables: the first (descending) row whose threshold x reaches."""
    for threshold, eff in rows:
        if x >= threshold:
            return eff
    raise InputError(f"{x} is below every row of the table {rows}")


def logit_layer_time_s(run, system):
    """The output layer's forward, activation and weight gradients per batch on the last
    pipeline stage, as Calculon would time a Linear of that shape (see the module's users)."""
    model, lay = run["model"], run["layout"]
    dt = CALCULON_DTYPE[run["dtype"]]
    m = lay["micro_batch"] * model["seq_size"]
    k = model["hidden"]
    n = model["vocab"] / lay["tensor_par"]
    flops = 2 * m * k * n
    table = system["matrix"][dt]
    flops_s = flops / (table["tflops"] * 1e12 * step_lookup(table["gflops_efficiency"],
                                                            flops / 1e9))
    bytes_ = (m * k + k * n + m * n) * BYTES[dt]
    mem = system["mem1"]
    mem_s = bytes_ / (mem["GBps"] * 1e9 * step_lookup(mem["MB_efficiency"], bytes_ / 1e6))
    mode = system.get("processing_mode", "no_overlap")
    one_pass = max(flops_s, mem_s) if mode == "roofline" else flops_s + mem_s
    micro_batches = lay["global_batch"] // lay["data_par"] // lay["micro_batch"]
    return 3 * one_pass * micro_batches


# Calculon's layers that hold the seq x seq attention scores (calculon/llm/llm.py,
# _build_attn_block): the two batched matmuls, the softmax and its dropout. A fused (flash)
# attention kernel keeps these on chip.
SCORE_LAYERS = ("AttnBlock_Multihead_Key_Query", "AttnBlock_Multihead_SoftMax",
                "AttnBlock_Multihead_DropOut", "AttnBlock_Multihead_Attn")
SCORE_MATMULS = ("AttnBlock_Multihead_Key_Query", "AttnBlock_Multihead_Attn")


def score_layers_time_s(run, stats, system):
    """The time per batch the score layers take on one processor (forward, backward and the
    recomputed forward, per block and micro-batch; the bubble's share left out), as Calculon
    gives it and as a fused kernel would take it: the two batched matmuls' FLOPs at the
    system's matrix table with no memory term (the scores stay on chip), softmax and dropout
    free. (None, None) without Calculon's per-layer output (`calculon llm -l`)."""
    layers = stats.get("layers")
    if not layers:
        return None, None
    exe = execution(run)
    lay = run["layout"]
    blocks = -(-run["model"]["num_blocks"] // lay["pipeline_par"])
    micro_batches = lay["global_batch"] // lay["data_par"] // lay["micro_batch"]
    fw_times = 2 if exe["activation_recompute"] in ("attn_only", "full") else 1
    table = system["matrix"][exe["datatype"]]

    def flops_s(flops):
        if not flops:
            return 0.0
        eff = step_lookup(table["gflops_efficiency"], flops / 1e9)
        return flops / (table["tflops"] * 1e12 * eff)

    calculon = fused = 0.0
    for layer in layers:
        if layer.get("name") not in SCORE_LAYERS:
            continue
        calculon += (layer.get("fw_processing_time", 0.0) * fw_times
                     + layer.get("agrad_processing_time", 0.0))
        if layer["name"] in SCORE_MATMULS:
            fused += (flops_s(layer.get("fw_flops", 0)) * fw_times
                      + flops_s(layer.get("agrad_flops", 0)))
    return calculon * blocks * micro_batches, fused * blocks * micro_batches


def with_datatype(system, run, which):
    """The system file with the run's data type in it, and what had to be assumed for it."""
    dt = CALCULON_DTYPE[run["dtype"]]
    doc, changed = copy.deepcopy(system), []
    if dt in doc["matrix"] and dt in doc["vector"]:
        if dt == "float8" and which == "railgauge" and "bfloat16" in doc["vector"]:
            # railgauge measures no vector op: calibrate's float8 vector table is another GPU's
            # vector/matrix ratio at the FP8 matrix peak, 3.7 x the H100's BF16 vector rate,
            # where an FP8 recipe leaves the elementwise work in bf16 (Calculon's own
            # h100_80g_nvl8.json holds its float8 vector table at its float16 one's 120 TFLOP/s).
            doc["vector"][dt] = doc["vector"]["bfloat16"]
            changed.append("its float8 vector table (not measured: another GPU's vector/matrix "
                           "ratio at the FP8 peak) replaced by its bfloat16 one: Transformer "
                           "Engine's FP8 recipe runs the elementwise work in bf16")
        return doc, changed
    if dt == "bfloat16" and "float16" in doc["matrix"]:
        doc["matrix"][dt] = doc["matrix"]["float16"]
        doc["vector"][dt] = doc["vector"].get("float16", doc["vector"].get(dt))
        changed.append("no bfloat16 table: its float16 tables stand for bfloat16 (the H100's "
                       "dense FP16 and BF16 peaks are the same, 989 TFLOP/s)")
    elif dt == "float8" and "bfloat16" in doc["matrix"]:
        fp8 = dict(doc["matrix"]["bfloat16"], tflops=PEAK_TFLOPS["fp8"])
        doc["matrix"][dt] = fp8
        doc["vector"][dt] = doc["vector"]["bfloat16"]
        changed.append("no FP8 GEMM measured: the bfloat16 efficiency table at the FP8 dense "
                       "peak (1979 TFLOP/s), and the bfloat16 vector table for float8")
    else:
        raise InputError(f"the {which} system file has no {dt} table and none to stand for it")
    return doc, changed


def _interval(entry, end):
    if not entry:
        return None
    return entry["low"] if end == "low" else entry["high"]


def interval_end(system, coefficients, end):
    """The system file at one end of the coefficients' 95 % intervals: 'low' is the slow end
    (every efficiency at its low bound, every alpha and beta at its high bound), 'high' the
    fast end. A value without an interval (assumed, or too few points) stays as it is."""
    doc = copy.deepcopy(system)
    slow = end == "low"
    tables = coefficients.get("calculon_tables", {})
    for name, fitted in tables.items():
        kind, _, dt = name.partition(".")
        target = (doc.get(kind, {}).get(dt) if dt else doc.get(kind))
        if target is None:
            continue
        key = "gflops_efficiency" if kind in ("matrix", "vector") else "MB_efficiency"
        rows = target[key]
        ends = fitted.get("row_intervals") or []
        if len(ends) != len(rows):
            raise InputError(f"{name}: {len(ends)} intervals for {len(rows)} rows")
        target[key] = [[x, _interval(e, "low" if slow else "high") or eff]
                       for (x, eff), e in zip(rows, ends)]
    for tier in coefficients.get("network", {}).values():
        joint = tier.get("joint") or {}
        net = doc["networks"][tier["index"]]
        alpha = _interval(joint.get("alpha_s_interval"), "high" if slow else "low")
        if alpha is not None:
            net["latency"] = alpha
        for op, beta in (joint.get("beta_s_per_byte") or {}).items():
            bound = _interval((joint.get("beta_s_per_byte_interval") or {}).get(op),
                              "high" if slow else "low")
            if bound is not None and op in net["ops"] and beta > 0:
                net["ops"][op] = [net["ops"][op][0] * bound / beta, net["ops"][op][1]]
    return doc


ATTENTION_KEY = "attention.torch_sdpa"


def read_attention(path):
    """The `ok` attention.torch_sdpa records of scripts/attention_rate.py: a records.jsonl, or a
    directory searched for them. {(batch, heads, seq, head_dim): {backend: {pass: [seconds per
    call, one per round]}}} and the records' devices and torch versions."""
    files = []
    if path.endswith(".jsonl"):
        files = [path]
    else:
        for root, _, names in os.walk(path):
            files += [os.path.join(root, n) for n in names if n == "records.jsonl"]
    table, gpus, torches = {}, set(), set()
    for name in sorted(files):
        try:
            with open(name, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except OSError as e:
            raise InputError(f"attention records {name}: {e}")
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                if rec.get("key") != ATTENTION_KEY or rec.get("status") != "ok":
                    continue
                p = rec["params"]
                if not p["causal"] or p["dtype"] != "bf16":
                    continue
                shape = (p["batch"], p["heads"], p["seq"], p["head_dim"])
                seconds = rec["metrics"]["time_s"]["median"]
                by_pass = table.setdefault(shape, {}).setdefault(p["backend"], {})
                by_pass.setdefault(p["pass"], []).append(seconds)
                gpus.add((rec.get("device") or {}).get("gpu_name") or "an unnamed GPU")
                torches.add(str(p.get("torch_version", "?")))
            except (ValueError, KeyError, TypeError, AttributeError) as e:
                raise InputError(f"attention record {name}:{number}: {type(e).__name__} {e} "
                                 f"(records of scripts/attention_rate.py are expected)")
    if not table:
        raise InputError(f"no ok causal bf16 {ATTENTION_KEY} record under {path} (write them "
                         f"with scripts/attention_rate.py on a GPU)")
    if len(gpus) > 1:
        # One median over two GPUs' rounds would be neither's rate.
        raise InputError(f"attention records of {len(gpus)} GPUs under {path} "
                         f"({', '.join(sorted(gpus))}): give one GPU's")
    return {"shapes": table, "gpus": sorted(gpus), "torch": sorted(torches)}


def attention_time(attention, run, backend=None):
    """(backend, forward s, backward s, rounds) of one GPU's attention in `run`, the median over
    rounds of the named backend or of the fastest (forward + backward); raises InputError
    naming the shape when it was not measured."""
    model, lay = run["model"], run["layout"]
    shape = (lay["micro_batch"], model["attn_heads"] // lay["tensor_par"], model["seq_size"],
             model["attn_size"])
    measured = {name: (statistics.median(p["forward"]), statistics.median(p["backward"]),
                       min(len(p["forward"]), len(p["backward"])))
                for name, p in attention["shapes"].get(shape, {}).items()
                if p.get("forward") and p.get("backward")}
    if backend is not None:
        measured = {k: v for k, v in measured.items() if k == backend}
    if not measured:
        which = f" through {backend}" if backend else ""
        raise InputError(f"no attention measured{which} at batch {shape[0]}, {shape[1]} heads, "
                         f"seq {shape[2]}, head size {shape[3]} (scripts/attention_rate.py "
                         f"--run {run['id']})")
    name = min(measured, key=lambda k: measured[k][0] + measured[k][1])
    return (name, *measured[name])


def attention_measured_s(run, attention, backend=None):
    """The attention of one pipeline stage per batch at the measured rate (forward, the
    recomputed forward where the run recomputes, and backward; per block and micro-batch), with
    the backend and the rounds it rests on."""
    name, forward_s, backward_s, rounds = attention_time(attention, run, backend)
    lay = run["layout"]
    blocks = -(-run["model"]["num_blocks"] // lay["pipeline_par"])
    micro_batches = lay["global_batch"] // lay["data_par"] // lay["micro_batch"]
    # A fused kernel's backward recomputes the scores itself (it is in backward_s); a forward
    # runs twice only where the run recomputes activations.
    forwards = 1 if lay["recompute"] == "none" else 2
    per_block = forwards * forward_s + backward_s
    return per_block * blocks * micro_batches, {"backend": name, "forward_s": forward_s,
                                                "backward_s": backward_s, "rounds": rounds}
