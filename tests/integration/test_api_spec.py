"""docs/api.yaml describes exactly the routes the server registers, each with its role
(`verdict serve --list-routes`). Stdlib only: the YAML's fixed layout is read with patterns."""
import os
import re
import subprocess
import tempfile
import unittest

import verdict_process as vp

SPEC = os.path.join(vp.SOURCE_DIR, "docs", "api.yaml")


def spec_routes():
    routes, path, method = {}, None, None
    with open(SPEC) as f:
        for line in f:
            m = re.match(r"^  (/\S*):\s*$", line)
            if m:
                path, method = m.group(1), None
                continue
            if re.match(r"^\S", line):
                path = None
            m = re.match(r"^    (get|post|put|patch|delete):\s*$", line)
            if m and path:
                method = m.group(1).upper()
                routes[(method, path)] = None
                continue
            m = re.match(r"^      x-verdict-role:\s*(\S+)\s*$", line)
            if m and path and method:
                routes[(method, path)] = m.group(1)
    return routes


def server_routes():
    with tempfile.TemporaryDirectory(prefix="verdict-spec-") as tmp:
        console = os.path.join(tmp, "console")
        os.makedirs(console)
        with open(os.path.join(console, "index.html"), "w") as f:
            f.write("<!doctype html>")
        out = subprocess.run([vp.BINARY, "serve", "--data-dir", os.path.join(tmp, "var"),
                              "--console-dir", console, "--list-routes"],
                             capture_output=True, text=True, timeout=120, check=True).stdout
    routes = {}
    for line in out.splitlines():
        m = re.match(r"^(GET|POST|PUT|PATCH|DELETE) (/\S*) (\S+)$", line)
        if m:
            routes[(m.group(1), m.group(2))] = m.group(3)
    return routes


class ApiSpecTest(unittest.TestCase):
    def test_spec_and_server_list_the_same_routes_and_roles(self):
        spec, server = spec_routes(), server_routes()
        self.assertGreater(len(server), 20)
        self.assertEqual(sorted(set(server) - set(spec)), [], "routes missing from docs/api.yaml")
        self.assertEqual(sorted(set(spec) - set(server)), [], "docs/api.yaml routes not served")
        for route, role in server.items():
            self.assertEqual(spec[route], role, route)

    def test_spec_declares_openapi_3(self):
        with open(SPEC) as f:
            self.assertRegex(f.read(), r"(?m)^openapi: 3\.\d+\.\d+$")


if __name__ == "__main__":
    unittest.main(verbosity=2)
