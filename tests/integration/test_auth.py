"""Negative-authorization matrix over every route (issue 9): no key, a bad key, a revoked key,
a key of the wrong role, and another tenant's key; each refused with the right status and
nothing disclosed."""
import json
import os
import subprocess
import tempfile
import unittest

import verdict_process as vp

# (method, path, role the route needs); bodies are minimal, validity is not what is tested.
ROUTES = [
    ("POST", "/v1/decisions", "scorer"),
    ("POST", "/v1/decisions:batch", "scorer"),
    ("GET", "/v1/decisions/0193a7c4-5e1b-7cc2-9f00-3b1f2a9e4d11", "analyst"),
    ("GET", "/v1/transactions/tx-1/decision", "analyst"),
    ("GET", "/v1/accounts/ACC-1/decisions", "analyst"),
    ("GET", "/v1/policy", "analyst"),
    ("POST", "/v1/policy:validate", "admin"),
    ("POST", "/v1/policy/ingest", "admin"),
    ("GET", "/v1/models", "analyst"),
    ("POST", "/v1/models", "admin"),
    ("POST", "/v1/models/aml/1:activate", "admin"),
    ("POST", "/v1/models:rollback", "admin"),
    ("GET", "/v1/drift", "analyst"),
    ("POST", "/v1/drift:clear", "admin"),
    ("GET", "/v1/webhooks", "admin"),
    ("GET", "/v1/keys", "admin"),
    ("POST", "/v1/keys", "admin"),
    ("POST", "/v1/keys/0000000000000000:revoke", "admin"),
    ("GET", "/metrics", "admin"),
    ("GET", "/v1/cases", "analyst"),
    ("GET", "/v1/cases/0193a7c4-5e1b-7cc2-9f00-3b1f2a9e4d11", "analyst"),
    ("POST", "/v1/cases/0193a7c4-5e1b-7cc2-9f00-3b1f2a9e4d11:assign", "analyst"),
    ("POST", "/v1/cases/0193a7c4-5e1b-7cc2-9f00-3b1f2a9e4d11:comment", "analyst"),
    ("POST", "/v1/cases/0193a7c4-5e1b-7cc2-9f00-3b1f2a9e4d11:dispose", "analyst"),
]
WRONG_ROLE = {"scorer": "analyst", "analyst": "scorer", "admin": "scorer"}




class AuthMatrixTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="verdict-auth-")
        cls.data_dir = os.path.join(cls.tmp, "var")
        cls.keys = {}
        for role in ("scorer", "analyst", "admin"):
            cls.keys[role] = vp.create_key(cls.data_dir, "bank-a", role)
        cls.other = vp.create_key(cls.data_dir, "bank-b", "scorer", "analyst", "admin")
        cls.revoked = vp.create_key(cls.data_dir, "bank-a", "scorer", "analyst", "admin")
        subprocess.run([vp.BINARY, "keys", "revoke", "--data-dir", cls.data_dir, "--id",
                        cls.revoked["id"]], check=True, capture_output=True)
        cls.engine = vp.VerdictProcess(data_dir=cls.data_dir, insecure_dev=False)

    @classmethod
    def tearDownClass(cls):
        cls.engine.__exit__(None, None, None)

    def call(self, method, path, key=None, body=None):
        headers = {"Authorization": "Bearer " + key} if key else {}
        if body is None and method == "POST":
            body = {}
        return self.engine.request(method, path, body=body, headers=headers)

    def test_public_routes_need_no_key(self):
        self.assertEqual(self.call("GET", "/healthz")[0], 200)
        self.assertIn(self.call("GET", "/readyz")[0], (200, 503))

    def test_no_bad_or_revoked_key_is_401_without_disclosure(self):
        bad = "vk_" + "0" * 16 + "_" + "0" * 64
        for method, path, _ in ROUTES:
            for key in (None, "garbage", bad, self.revoked["key"]):
                with self.subTest(route=path, method=method, key=key and key[:8]):
                    status, headers, data = self.call(method, path, key)
                    self.assertEqual(status, 401, data)
                    self.assertIn("bearer", headers.get("www-authenticate", "").lower())
                    error = json.loads(data)["error"]
                    self.assertEqual(error["code"], "unauthenticated")
                    if key:
                        self.assertNotIn(key, data.decode())

    def test_wrong_role_is_403(self):
        for method, path, role in ROUTES:
            with self.subTest(route=path, method=method):
                status, _, data = self.call(method, path, self.keys[WRONG_ROLE[role]]["key"])
                self.assertEqual(status, 403, data)

    def test_right_role_passes_authentication(self):
        for method, path, role in ROUTES:
            with self.subTest(route=path, method=method):
                status, _, data = self.call(method, path, self.keys[role]["key"])
                self.assertNotIn(status, (401, 403), data)

    def test_admin_route_creates_and_revokes_keys_of_its_own_tenant_only(self):
        admin = self.keys["admin"]["key"]
        status, _, data = self.call("POST", "/v1/keys", admin, {"roles": ["analyst"]})
        self.assertEqual(status, 201, data)
        new = json.loads(data)
        self.assertEqual(self.call("GET", "/v1/policy", new["key"])[0], 200)
        listed = json.loads(self.call("GET", "/v1/keys", admin)[2])["keys"]
        self.assertTrue(all(k["tenant"] == "bank-a" for k in listed))
        self.assertFalse(any("sha256" in k or "salt" in k for k in listed))
        # Another tenant's admin cannot see or revoke it: 404, as for an unknown id.
        status, _, _ = self.call("POST", "/v1/keys/%s:revoke" % new["id"], self.other["key"])
        self.assertEqual(status, 404)
        status, _, _ = self.call("POST", "/v1/keys", admin, {"roles": ["scorer"],
                                                             "tenant": "bank-b"})
        self.assertEqual(status, 403)
        status, _, _ = self.call("POST", "/v1/keys/%s:revoke" % new["id"], admin)
        self.assertEqual(status, 200)
        # Revocation is immediate.
        self.assertEqual(self.call("GET", "/v1/policy", new["key"])[0], 401)

    def test_keys_never_logged(self):
        log = self.engine.read_log()
        for key in [k["key"] for k in self.keys.values()] + [self.other["key"]]:
            self.assertNotIn(key, log)


if __name__ == "__main__":
    unittest.main()
