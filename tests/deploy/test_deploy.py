"""deploy/ (docs/operations.md): the Kubernetes manifests validate against the API's schemas and
the Dockerfile passes dockerfilelint (deploy/check/validate.mjs), and the configuration the
StatefulSet renders for a pod is one `verdict serve` accepts (every key known, the [cluster]
table complete)."""
import os
import subprocess
import tempfile
import unittest

import yaml

SOURCE_DIR = os.environ.get("VERDICT_SOURCE_DIR", ".")
BINARY = os.environ.get("VERDICT_BIN", os.path.join(SOURCE_DIR, "build/release/bin/verdict"))
NODE = os.environ.get("VERDICT_NODE", "node")
DEPLOY = os.path.join(SOURCE_DIR, "deploy")


class DeployTest(unittest.TestCase):
    def test_manifests_and_dockerfile_pass_their_validators(self):
        out = subprocess.run([NODE, os.path.join(DEPLOY, "check", "validate.mjs")],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("5 Kubernetes resources", out.stdout)

    def test_the_rendered_configuration_is_accepted(self):
        with open(os.path.join(DEPLOY, "k8s", "configmap.yaml")) as f:
            template = yaml.safe_load(f)["data"]["verdict.toml.template"]
        # As the init container renders it for pod verdict-0; the image's model path is the
        # repository's here.
        text = (template.replace("NODE_ID", "verdict-0")
                .replace("POSTGRES_URL", "postgresql://verdict@127.0.0.1:5432/verdict")
                .replace("/etc/models/", os.path.abspath(os.path.join(SOURCE_DIR, "models")) + "/"))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "verdict.toml")
            with open(path, "w") as f:
                f.write(text)
            out = subprocess.run([BINARY, "serve", "--list-routes", "--config", path,
                                  "--data-dir", os.path.join(tmp, "var")],
                                 capture_output=True, text=True, timeout=120)
            self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
            self.assertIn("POST /v1/decisions scorer", out.stdout.splitlines())
            # An unknown key is refused naming it: the check above can fail.
            with open(path, "a") as f:
                f.write("\n[cluster_typo]\nnode = 1\n")
            out = subprocess.run([BINARY, "serve", "--list-routes", "--config", path],
                                 capture_output=True, text=True, timeout=120)
            self.assertNotEqual(out.returncode, 0)
            self.assertIn("cluster_typo", out.stdout + out.stderr)


if __name__ == "__main__":
    unittest.main()
