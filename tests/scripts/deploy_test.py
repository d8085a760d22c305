"""The deployment files of deploy/: the Kubernetes manifests pass the Kubernetes schema (strict:
an unknown field fails), and a broken one fails it; they ask for what docs/install.md says (the
burn-in Job holds every GPU it expects, the inventory DaemonSet none) with options railgauge
knows and a shipped rules profile; the Apptainer definition has the header and sections a build
needs, and runs the installed binary; debian/changelog's version is the project's.

Usage: deploy_test.py RAILGAUGE_BINARY SOURCE_DIR [TestName ...]
The schema check is kubernetes-validate from SOURCE_DIR/.venv-deploy (scripts/setup.sh).
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile
import unittest

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from named_tests import run_named_tests  # noqa: E402

BINARY = SOURCE = None
# The sections Apptainer's definition files know (apptainer.org, "Definition Files").
APPTAINER_SECTIONS = {"setup", "files", "environment", "post", "runscript", "startscript", "test",
                      "labels", "help", "arguments", "app", "appinstall", "appenv", "apprun",
                      "applabels", "appfiles", "apphelp", "apptest", "appstart"}


def k8s_path(name):
    return os.path.join(SOURCE, "deploy", "k8s", name)


def load(name):
    with open(k8s_path(name)) as f:
        return yaml.safe_load(f)


def pod_spec(manifest):
    return manifest["spec"]["template"]["spec"]


def validate(paths):
    tool = os.path.join(SOURCE, ".venv-deploy", "bin", "kubernetes-validate")
    if not os.access(tool, os.X_OK):
        raise AssertionError(f"{tool} is missing: run scripts/setup.sh, which installs it")
    return subprocess.run([tool, "--strict", *paths], capture_output=True, text=True, timeout=120)


def options_of(subcommand):
    """The long options `railgauge SUBCOMMAND --help` lists."""
    p = subprocess.run([BINARY, subcommand, "--help"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return set(re.findall(r"(--[a-z][a-z0-9-]*)", p.stdout))


class DeployTest(unittest.TestCase):
    MANIFESTS = ["burnin-job.yaml", "burnin-rbac.yaml", "inventory-daemonset.yaml"]

    def test_k8s_manifests_pass_the_schema(self):
        p = validate([k8s_path(m) for m in self.MANIFESTS])
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        # burnin-rbac.yaml holds five resources: the service account, two roles, two bindings.
        self.assertEqual(p.stdout.count(" passed for resource "), len(self.MANIFESTS) + 4,
                         p.stdout)

    def test_a_broken_manifest_fails_the_schema(self):
        with open(k8s_path("burnin-job.yaml")) as f:
            text = f.read()
        for wrong in [text.replace("ttlSecondsAfterFinished", "ttlSecondsAfterFinish"),
                      text.replace("hostNetwork: true", "hostNetwork: always")]:
            self.assertNotEqual(wrong, text)
            with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
                f.write(wrong)
                f.flush()
                p = validate([f.name])
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertIn("did not validate", p.stdout + p.stderr)

    def test_burnin_job_holds_the_gpus_it_expects(self):
        job = load("burnin-job.yaml")
        spec = pod_spec(job)
        [container] = spec["containers"]
        gpus = container["resources"]["limits"]["nvidia.com/gpu"]
        self.assertEqual(container["resources"]["requests"]["nvidia.com/gpu"], gpus)
        self.assertEqual(container["command"], ["/bin/sh", "-c"])
        [script] = container["args"]
        lines = script.replace("\\\n", " ").splitlines()
        [burnin] = [line for line in lines if line.strip().startswith("railgauge burnin")]
        command = shlex.split(burnin)
        self.assertEqual(command[command.index("--expect") + 1], f"gpus={gpus}")
        # The verdict goes on the node through the service account, whatever the status.
        [verdict] = [line for line in lines if "verdict_to_node.py" in line]
        self.assertIn('--status "$status"', verdict)
        helper = subprocess.run([sys.executable, os.path.join(SOURCE, "deploy", "k8s",
                                                              "verdict_to_node.py"), "--help"],
                                capture_output=True, text=True, timeout=60)
        self.assertEqual(set(re.findall(r"--[a-z][a-z-]*", verdict))
                         - set(re.findall(r"--[a-z][a-z-]*", helper.stdout)), set())
        self.assertEqual(spec["serviceAccountName"], "railgauge-burnin")
        env = {e["name"]: e for e in container["env"]}
        self.assertEqual(env["NODE_NAME"]["valueFrom"]["fieldRef"]["fieldPath"], "spec.nodeName")
        rbac = list(yaml.safe_load_all(open(k8s_path("burnin-rbac.yaml"))))
        granted = {(r["kind"], res, verb) for r in rbac if r["kind"] in ("ClusterRole", "Role")
                   for rule in r["rules"] for res in rule["resources"] for verb in rule["verbs"]}
        for need in [("ClusterRole", "nodes", "get"), ("ClusterRole", "nodes", "patch"),
                     ("Role", "configmaps", "create"), ("Role", "configmaps", "update")]:
            self.assertIn(need, granted)
        self.assertTrue(spec["hostNetwork"])
        self.assertEqual(spec["restartPolicy"], "Never")
        self.assertEqual(job["spec"]["backoffLimit"], 0)
        self.assertIn("IPC_LOCK", container["securityContext"]["capabilities"]["add"])
        self.assertEqual(job["metadata"]["name"].removeprefix("railgauge-burnin-"),
                         spec["nodeSelector"]["kubernetes.io/hostname"])
        known = options_of("burnin")
        self.assertEqual({a for a in command if a.startswith("--")} - known, set())

    def test_inventory_daemonset_takes_no_gpu_and_checks_inventory_only(self):
        spec = pod_spec(load("inventory-daemonset.yaml"))
        [container] = spec["containers"]
        for kind in ("requests", "limits"):
            self.assertNotIn("nvidia.com/gpu", container["resources"].get(kind, {}))
        self.assertTrue(spec["hostNetwork"])
        env = {e["name"]: e["value"] for e in container["env"]}
        self.assertEqual(env["CHECK_EVERY_S"], str(7 * 24 * 3600))
        self.assertTrue(os.path.isfile(os.path.join(SOURCE, "results", "rules",
                                                    env["RULES"] + ".yaml")), env["RULES"])
        [script] = container["args"]
        [check] = [line for line in script.replace("\\\n", " ").splitlines()
                   if line.strip().startswith("railgauge check")]
        argv = shlex.split(check)
        self.assertIn("--inventory-only", argv)
        self.assertEqual(argv[argv.index("--prometheus") + 1], "/textfile/railgauge.prom")
        self.assertEqual({a for a in argv if a.startswith("--")} - options_of("check"), set())
        mounts = {m["mountPath"] for m in container["volumeMounts"]}
        self.assertIn("/dev/infiniband", mounts)

    def test_inventory_daemonset_loop_writes_the_verdict_and_its_exit_status(self):
        """One turn of the DaemonSet's loop, as written, into a directory standing for the
        textfile collector's: the verdict series, then a wrong profile (exit 4) that leaves the
        verdict in place and says 4 in the exit-status series."""
        [container] = pod_spec(load("inventory-daemonset.yaml"))["containers"]
        [script] = container["args"]
        self.assertIn('sleep "$CHECK_EVERY_S"', script)
        with tempfile.TemporaryDirectory() as textfile:
            once = script.replace("/textfile", textfile).replace('sleep "$CHECK_EVERY_S"',
                                                                 "break")
            env = dict(os.environ, PATH=os.path.dirname(BINARY) + ":" + os.environ["PATH"])

            def turn(rules):
                p = subprocess.run(["sh", "-c", once], env=dict(env, RULES=rules),
                                   capture_output=True, text=True, timeout=120)
                self.assertEqual(p.returncode, 0, p.stderr)
                with open(os.path.join(textfile, "railgauge.prom")) as f:
                    verdict = f.read()
                with open(os.path.join(textfile, "railgauge-exit.prom")) as f:
                    status = f.read()
                return verdict, status

            verdict, status = turn("host-only")
            self.assertIn("railgauge_check_time_seconds{rules=\"host-only\"}", verdict)
            self.assertRegex(status, r'railgauge_check_exit_status\{rules="host-only"\} [012]\n')
            kept, status = turn("no-such-profile")
            self.assertEqual(kept, verdict)
            self.assertIn('railgauge_check_exit_status{rules="no-such-profile"} 4\n', status)
            self.assertEqual(sorted(os.listdir(textfile)), ["railgauge-exit.prom",
                                                            "railgauge.prom"])

    def test_apptainer_definition_has_what_a_build_needs(self):
        with open(os.path.join(SOURCE, "deploy", "apptainer", "railgauge.def")) as f:
            lines = [line.rstrip("\n") for line in f if not line.startswith("#")]
        header, sections, current = {}, {}, None
        for line in lines:
            m = re.match(r"^%(\w+)\s*(.*)$", line)
            if m:
                current = m.group(1)
                self.assertIn(current, APPTAINER_SECTIONS, f"unknown section %{current}")
                self.assertNotIn(current, sections, f"%{current} twice")
                sections[current] = []
            elif current:
                if line.strip():
                    sections[current].append(line.strip())
            elif line.strip():
                key, _, value = line.partition(":")
                header[key.strip()] = value.strip()
        self.assertEqual(header.get("Bootstrap"), "oci-archive")
        self.assertTrue(header.get("From"), "the header names no From:")
        for needed in ("runscript", "test", "help", "labels"):
            self.assertTrue(sections.get(needed), f"%{needed} is missing or empty")
        self.assertEqual(sections["runscript"], ['exec /usr/bin/railgauge "$@"'])
        self.assertIn("/usr/bin/railgauge --version", sections["test"])

    def test_package_build_out_of_time_says_so(self):
        """scripts/package.sh with a dpkg-buildpackage that outlives RAILGAUGE_PACKAGE_TIMEOUT_S
        (tools stubbed on PATH): the message names the limit and how to go on, not a failure."""
        with tempfile.TemporaryDirectory() as tmp:
            stubs = os.path.join(tmp, "bin")
            os.mkdir(stubs)
            for tool, body in [("dpkg-buildpackage", "sleep 30"), ("dh", "true"),
                               ("dh_clean", "true"), ("help2man", "true"), ("lintian", "true")]:
                with open(os.path.join(stubs, tool), "w") as f:
                    f.write(f"#!/bin/sh\n{body}\n")
                os.chmod(os.path.join(stubs, tool), 0o755)
            env = dict(os.environ, PATH=stubs + ":" + os.environ["PATH"],
                       PACKAGE_DIR=os.path.join(tmp, "out"), RAILGAUGE_PACKAGE_TIMEOUT_S="1")
            p = subprocess.run([os.path.join(SOURCE, "scripts", "package.sh")], env=env,
                               capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("dpkg-buildpackage ran out of its 1 s", p.stderr)
        self.assertIn("RAILGAUGE_PACKAGE_TIMEOUT_S", p.stderr)

    def test_debian_changelog_is_the_projects_version(self):
        """The package's version is debian/changelog's; a release that bumps project(VERSION)
        alone would ship a .deb that says another version than `railgauge --version`."""
        with open(os.path.join(SOURCE, "CMakeLists.txt")) as f:
            [project] = re.findall(r"project\(railgauge VERSION (\S+)", f.read())
        p = subprocess.run(["dpkg-parsechangelog", "-S", "Version",
                            "-l", os.path.join(SOURCE, "debian", "changelog")],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), project)
        p = subprocess.run([BINARY, "--version"], capture_output=True, text=True, timeout=60)
        self.assertTrue(p.stdout.startswith(f"railgauge {project} "), p.stdout)


if __name__ == "__main__":
    BINARY, SOURCE = sys.argv[1:3]
    run_named_tests(sys.argv[3:])
