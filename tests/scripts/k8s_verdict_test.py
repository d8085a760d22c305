"""deploy/k8s/verdict_to_node.py against a Kubernetes API server played from recorded answers:
the node as `GET /api/v1/nodes/NAME` returns it (tests/fixtures/k8s/node-gpu-node-001.json, checked
against the Kubernetes schema by kubernetes-validate), a merge patch answered with the patched
node, ConfigMaps created or, when kept from an earlier burn-in, replaced. The verdicts come from
railgauge check of the committed H200 burn-in runs (healthy and beside a co-tenant).

Usage: k8s_verdict_test.py RAILGAUGE_BINARY SOURCE_DIR [TestName ...]
"""
import copy
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from named_tests import run_named_tests  # noqa: E402

BINARY = SOURCE = None
REFERENCE = "results/reference/h200-burnin-2026-11-27/burnin"


def merge_patch(target, patch):
    """RFC 7386, as the API server applies application/merge-patch+json."""
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge_patch(out.get(key), value)
    return out


class FakeApi:
    """Answers as the API server does, and keeps every request it was sent."""

    def __init__(self, node, configmap_exists=False, conflicts=0):
        self.node = node
        self.configmaps = {"railgauge-burnin-gpu-node-001": {}} if configmap_exists else {}
        self.conflicts = conflicts
        self.requests = []
        api = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, code, body):
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def handle_any(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                api.requests.append({"method": self.command, "path": self.path, "body": body,
                                     "type": self.headers.get("Content-Type"),
                                     "auth": self.headers.get("Authorization")})
                self.answer(*api.route(self.command, self.path, body))

            do_GET = do_PATCH = do_POST = do_PUT = handle_any

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def route(self, method, path, body):
        node_path = "/api/v1/nodes/" + self.node["metadata"]["name"]
        if path == node_path and method == "GET":
            return 200, self.node
        if path == node_path and method == "PATCH":
            if self.conflicts:
                self.conflicts -= 1
                self.node["metadata"]["resourceVersion"] = str(
                    int(self.node["metadata"]["resourceVersion"]) + 1)
                return 409, {"kind": "Status", "status": "Failure", "reason": "Conflict",
                             "message": "the object has been modified", "code": 409}
            if body["metadata"]["resourceVersion"] != self.node["metadata"]["resourceVersion"]:
                return 409, {"kind": "Status", "message": "stale resourceVersion", "code": 409}
            patch = copy.deepcopy(body)
            del patch["metadata"]["resourceVersion"]
            self.node = merge_patch(self.node, patch)
            self.node["metadata"]["resourceVersion"] = str(
                int(self.node["metadata"]["resourceVersion"]) + 1)
            return 200, self.node
        prefix = "/api/v1/namespaces/railgauge/configmaps"
        if path == prefix and method == "POST":
            name = body["metadata"]["name"]
            if name in self.configmaps:
                return 409, {"kind": "Status", "reason": "AlreadyExists", "code": 409,
                             "message": f'configmaps "{name}" already exists'}
            self.configmaps[name] = body
            return 201, body
        if path.startswith(prefix + "/") and method == "PUT":
            self.configmaps[path.rsplit("/", 1)[1]] = body
            return 200, body
        return 404, {"kind": "Status", "message": f"{method} {path}: not found", "code": 404}

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class K8sVerdictTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="k8s-verdict-")
        with open(os.path.join(SOURCE, "tests", "fixtures", "k8s", "node-gpu-node-001.json")) as f:
            self.node = json.load(f)
        self.token = os.path.join(self.tmp, "token")
        with open(self.token, "w") as f:
            f.write("recorded-token\n")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def runs_of(self, which):
        """An --out directory holding the committed run `which` (healthy or cotenant)."""
        runs = os.path.join(self.tmp, "runs-" + which)
        src = os.path.join(SOURCE, REFERENCE, which)
        [name] = os.listdir(src)
        shutil.copytree(os.path.join(src, name), os.path.join(runs, name))
        return runs

    def verdict(self, api, status, runs=None, since=0.0, **kw):
        argv = [sys.executable, os.path.join(SOURCE, "deploy", "k8s", "verdict_to_node.py"),
                "--status", str(status), "--node", "gpu-node-001", "--namespace", "railgauge",
                "--api", kw.get("url", api.url if api else ""), "--token-file", self.token,
                "--railgauge", BINARY, "--timeout", "5", "--since", str(since)]
        if runs:
            argv += ["--runs", runs]
        return subprocess.run(argv, capture_output=True, text=True, timeout=60)

    def test_the_fixture_is_a_node_the_schema_accepts(self):
        tool = os.path.join(SOURCE, ".venv-deploy", "bin", "kubernetes-validate")
        if not os.access(tool, os.X_OK):
            self.fail(f"{tool} is missing: run scripts/setup.sh, which installs it")
        p = subprocess.run([tool, "--strict", os.path.join(SOURCE, "tests", "fixtures", "k8s",
                                                           "node-gpu-node-001.json")],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_a_failed_burnin_labels_taints_and_keeps_its_verdict(self):
        api = FakeApi(self.node)
        try:
            p = self.verdict(api, 2, self.runs_of("cotenant"))
        finally:
            api.close()
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        labels = api.node["metadata"]["labels"]
        self.assertEqual(labels["railgauge.io/burnin"], "fail")
        self.assertEqual(labels["nvidia.com/gpu.product"], "NVIDIA-H200")  # others kept
        summary = api.node["metadata"]["annotations"]["railgauge.io/burnin-verdict"]
        self.assertIn("burn-gemm-floor on gpu0", summary)
        self.assertIn("burn-hbm-floor on gpu0", summary)
        taints = api.node["spec"]["taints"]
        self.assertIn({"key": "railgauge.io/burnin", "value": "fail", "effect": "NoSchedule"},
                      taints)
        self.assertIn("nvidia.com/gpu", [t["key"] for t in taints])  # the operator's kept
        [cm] = api.configmaps.values()
        self.assertEqual(cm["data"]["verdict"], "fail")
        self.assertEqual(json.loads(cm["data"]["check.json"])["verdict"], "fail")
        patch = [r for r in api.requests if r["method"] == "PATCH"][0]
        self.assertEqual(patch["type"], "application/merge-patch+json")
        self.assertEqual(patch["auth"], "Bearer recorded-token")

    def test_a_pass_clears_an_earlier_taint_and_replaces_the_kept_verdict(self):
        self.node["spec"]["taints"].append(
            {"key": "railgauge.io/burnin", "value": "fail", "effect": "NoSchedule"})
        api = FakeApi(self.node, configmap_exists=True, conflicts=1)
        try:
            # The healthy run of main's older commit lacks telemetry today's rules read: the
            # status is the burn-in's, the kept verdict is what check says now.
            p = self.verdict(api, 0, self.runs_of("healthy"))
        finally:
            api.close()
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(api.node["metadata"]["labels"]["railgauge.io/burnin"], "pass")
        self.assertNotIn("railgauge.io/burnin", [t["key"] for t in api.node["spec"]["taints"]])
        self.assertEqual([r["method"] for r in api.requests],
                         ["GET", "PATCH", "GET", "PATCH", "POST", "PUT"])
        self.assertIn("taint cleared", p.stdout)

    def test_a_burnin_that_wrote_no_run_is_an_error_and_tainted(self):
        api = FakeApi(self.node)
        try:
            p = self.verdict(api, 3, os.path.join(self.tmp, "none"), since=time.time())
        finally:
            api.close()
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(api.node["metadata"]["labels"]["railgauge.io/burnin"], "error")
        self.assertIn("no run directory was written",
                      api.node["metadata"]["annotations"]["railgauge.io/burnin-verdict"])
        self.assertIn("railgauge.io/burnin", [t["key"] for t in api.node["spec"]["taints"]])

    def test_an_api_server_that_refuses_or_is_gone_exits_3_naming_the_request(self):
        self.node["metadata"]["name"] = "another-node"  # GET .../gpu-node-001 answers 404
        api = FakeApi(self.node)
        try:
            p = self.verdict(api, 0)
        finally:
            api.close()
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn("GET /api/v1/nodes/gpu-node-001: HTTP 404", p.stderr)
        p = self.verdict(None, 0, url="http://127.0.0.1:9")  # nothing listens on port 9
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn("did not answer", p.stderr)


if __name__ == "__main__":
    BINARY, SOURCE = sys.argv[1:3]
    run_named_tests(sys.argv[3:])
