"""Puts a burn-in's verdict on the Kubernetes node it judged, where the scheduler and the operator
see it: a label (railgauge.io/burnin = pass, warn, fail or error) with the time, an annotation
naming the failed rules and GPUs, a taint on a node that failed or could not be judged (so no new
training pod lands there; a later PASS removes it), and a ConfigMap holding the whole verdict, kept
after the Job and its log are gone.

Run by the burn-in Job after `railgauge burnin` (deploy/k8s/burnin-job.yaml):

    python3 /usr/share/railgauge/k8s/verdict_to_node.py --status $? \
        --runs /var/lib/railgauge/runs --since START_EPOCH_S

It speaks to the API server with the pod's service account (deploy/k8s/burnin-rbac.yaml grants
what it needs: get and patch on nodes, get, create and update on ConfigMaps in its namespace).
Only the Python standard library: the image has no Kubernetes client.

Exit status: 0 when the node carries the verdict, 3 when the API server could not be told (the
message says which request and why); the burn-in's own status is kept in the label either way.
"""
import argparse
import json
import os
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request

SERVICE_ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount"
LABEL = "railgauge.io/burnin"
TAINT_KEY = "railgauge.io/burnin"
# railgauge's exit statuses (docs/reliability.md) as the label's value. 5 (a point outlived its
# timeout, or the run was stopped) judged nothing: like a crash, the node is not known healthy.
VERDICT_OF_STATUS = {0: "pass", 1: "warn", 2: "fail", 3: "error", 4: "bad-input", 5: "error"}
# A node that failed or whose burn-in did not finish is kept from new pods until a PASS.
TAINTED = {"fail", "error"}
# Annotations and ConfigMaps have size limits (256 KiB for all annotations of an object, 1 MiB for
# a ConfigMap): the summary is cut, the verdict kept whole when it fits.
SUMMARY_CHARS = 1024
CONFIGMAP_BYTES = 900 * 1024


class ApiError(RuntimeError):
    pass


class Api:
    def __init__(self, base, token, ca_file, timeout_s):
        self.base = base.rstrip("/")
        self.token = token
        self.timeout_s = timeout_s
        self.context = None
        if self.base.startswith("https://"):
            self.context = ssl.create_default_context(cafile=ca_file)

    def request(self, method, path, body=None, content_type="application/json"):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Accept", "application/json")
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        if data is not None:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s, context=self.context) as r:
                return r.status, json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as e:
            text = e.read().decode(errors="replace")
            try:
                message = json.loads(text).get("message", text)
            except ValueError:
                message = text
            return e.code, {"message": message}
        except (urllib.error.URLError, OSError) as e:
            raise ApiError(f"{method} {path}: the API server at {self.base} did not answer "
                           f"within {self.timeout_s} s ({e})") from e


def newest_run(runs_dir, since_s):
    """The newest run directory under runs_dir written at or after since_s, or None."""
    best = None
    try:
        entries = list(os.scandir(runs_dir))
    except OSError:
        return None
    for entry in entries:
        run_json = os.path.join(entry.path, "run.json")
        try:
            mtime = os.stat(run_json).st_mtime
        except OSError:
            continue
        if mtime >= since_s and (best is None or mtime > best[0]):
            best = (mtime, entry.path)
    return best[1] if best else None


def judge(railgauge, rules, run_dir, timeout_s):
    """check's JSON verdict of run_dir (railgauge.check/1), or None with the reason."""
    try:
        p = subprocess.run([railgauge, "check", "--rules", rules, "--format", "json", run_dir],
                           capture_output=True, text=True, timeout=timeout_s)
        return json.loads(p.stdout), None
    except (OSError, subprocess.TimeoutExpired, ValueError) as e:
        return None, f"railgauge check of {run_dir} gave no verdict: {e}"


def summary_of(verdict_name, status, check, reason):
    """One line: the verdict and, on failure, the failed rules with the parts they failed on."""
    if check is None:
        return f"{verdict_name} (exit {status}): {reason}"[:SUMMARY_CHARS]
    failed = {}
    for part in check.get("parts", []):
        for finding in part.get("findings", []):
            if finding.get("level") == "fail":
                failed.setdefault(finding.get("rule", "?"), set()).add(part.get("label", "?"))
    if not failed:
        return f"{verdict_name} (exit {status})"
    causes = "; ".join(f"{rule} on {','.join(sorted(parts))}"
                       for rule, parts in sorted(failed.items()))
    return f"{verdict_name} (exit {status}): {causes}"[:SUMMARY_CHARS]


def node_patch(node, verdict_name, stamp, summary):
    """A merge patch for the node: label, annotation, and its taints with railgauge's own set or
    cleared. The node's resourceVersion makes the patch fail, not overwrite, if another writer
    changed the taints in between."""
    taints = [t for t in (node.get("spec", {}).get("taints") or []) if t.get("key") != TAINT_KEY]
    if verdict_name in TAINTED:
        taints.append({"key": TAINT_KEY, "value": verdict_name, "effect": "NoSchedule"})
    return {"metadata": {"resourceVersion": node["metadata"]["resourceVersion"],
                         "labels": {LABEL: verdict_name, LABEL + "-time": stamp},
                         "annotations": {LABEL + "-verdict": summary}},
            "spec": {"taints": taints}}


def configmap(name, namespace, node_name, verdict_name, status, stamp, run_dir, check):
    data = {"node": node_name, "verdict": verdict_name, "exit_status": str(status),
            "time": stamp, "run": run_dir or ""}
    if check is not None:
        text = json.dumps(check, indent=1, sort_keys=True)
        data["check.json"] = (text if len(text.encode()) <= CONFIGMAP_BYTES else
                              json.dumps({"cut": f"{len(text)} characters, over the ConfigMap "
                                                 "limit: the run directory keeps it whole",
                                          "summary": check.get("summary")}))
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": namespace,
                         "labels": {"app.kubernetes.io/name": "railgauge",
                                    "app.kubernetes.io/component": "burnin", LABEL: verdict_name}},
            "data": data}


def tell(api, args, verdict_name, summary, stamp, run_dir, check):
    node_path = f"/api/v1/nodes/{args.node}"
    for attempt in range(3):  # a conflict means another writer won a race: read again
        code, node = api.request("GET", node_path)
        if code != 200:
            raise ApiError(f"GET {node_path}: HTTP {code}: {node.get('message')}")
        code, answer = api.request("PATCH", node_path,
                                   node_patch(node, verdict_name, stamp, summary),
                                   "application/merge-patch+json")
        if code == 200:
            break
        if code != 409 or attempt == 2:
            raise ApiError(f"PATCH {node_path}: HTTP {code}: {answer.get('message')}")
    cm_name = f"railgauge-burnin-{args.node}"[:253]
    cm = configmap(cm_name, args.namespace, args.node, verdict_name, args.status, stamp, run_dir,
                   check)
    base = f"/api/v1/namespaces/{args.namespace}/configmaps"
    code, answer = api.request("POST", base, cm)
    if code == 409:  # kept from an earlier burn-in of this node: replaced
        code, answer = api.request("PUT", f"{base}/{cm_name}", cm)
    if code not in (200, 201):
        raise ApiError(f"ConfigMap {args.namespace}/{cm_name}: HTTP {code}: "
                       f"{answer.get('message')}")


def read_text(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--status", type=int, required=True, help="railgauge burnin's exit status")
    parser.add_argument("--runs", help="the burn-in's --out directory")
    parser.add_argument("--since", type=float, default=0,
                        help="only runs written at or after this time (seconds since the epoch)")
    parser.add_argument("--rules", default="auto", help="the profile the burn-in judged by")
    parser.add_argument("--node", default=os.environ.get("NODE_NAME"),
                        help="the node's name (default: $NODE_NAME, from the downward API)")
    parser.add_argument("--namespace", default=read_text(f"{SERVICE_ACCOUNT}/namespace"),
                        help="where the verdict's ConfigMap goes (default: the pod's namespace)")
    host = os.environ.get("KUBERNETES_SERVICE_HOST")
    port = os.environ.get("KUBERNETES_SERVICE_PORT", "443")
    parser.add_argument("--api", default=f"https://{host}:{port}" if host else None,
                        help="the API server (default: the in-cluster service)")
    parser.add_argument("--token-file", default=f"{SERVICE_ACCOUNT}/token")
    parser.add_argument("--ca-file", default=f"{SERVICE_ACCOUNT}/ca.crt")
    parser.add_argument("--railgauge", default="railgauge")
    parser.add_argument("--timeout", type=float, default=20, help="seconds per request")
    args = parser.parse_args(argv)
    for name, value, fix in [("--node", args.node, "set NODE_NAME from spec.nodeName"),
                             ("--namespace", args.namespace, "run in a pod or give --namespace"),
                             ("--api", args.api, "run in a pod or give --api URL")]:
        if not value:
            print(f"verdict_to_node: {name} is not known: {fix}", file=sys.stderr)
            return 4

    verdict_name = VERDICT_OF_STATUS.get(args.status, "error")
    run_dir = newest_run(args.runs, args.since) if args.runs else None
    check, reason = None, "no run directory was written"
    if run_dir:
        check, reason = judge(args.railgauge, args.rules, run_dir, args.timeout)
    summary = summary_of(verdict_name, args.status, check, reason)
    stamp = time.strftime("%Y-%m-%dT%H.%M.%SZ", time.gmtime())  # label values allow no ':'
    print(f"verdict_to_node: {args.node}: {summary}", flush=True)
    api = Api(args.api, read_text(args.token_file), args.ca_file, args.timeout)
    try:
        tell(api, args, verdict_name, summary, stamp, run_dir, check)
    except ApiError as e:
        print(f"verdict_to_node: the node does not carry its verdict: {e}", file=sys.stderr)
        return 3
    print(f"verdict_to_node: {args.node} labelled {LABEL}={verdict_name}"
          + (f", tainted {TAINT_KEY}={verdict_name}:NoSchedule" if verdict_name in TAINTED else
             ", railgauge's taint cleared"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
