"""Starts and stops a real `verdict serve` on an ephemeral loopback port for a test.

Shared by the integration tests; uses only the Python standard library.
"""
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time

BINARY = os.environ.get("VERDICT_BIN", "build/release/bin/verdict")
SOURCE_DIR = os.environ.get("VERDICT_SOURCE_DIR", ".")


def shipped_config_text():
    """config/verdict.toml's text, to be written elsewhere: its relative paths are relative to
    config/ (the file's folder), so they are made absolute."""
    config_dir = os.path.abspath(os.path.join(SOURCE_DIR, "config"))
    with open(os.path.join(config_dir, "verdict.toml")) as f:
        text = f.read()
    return re.sub(r'(?m)^(path|data_dir) = "([^/"][^"]*)"$',
                  lambda m: '%s = "%s"' % (m.group(1),
                                           os.path.normpath(os.path.join(config_dir, m.group(2)))),
                  text)


class VerdictProcess:
    """One engine process with its own data directory; a context manager."""

    def __init__(self, extra_args=(), config=None, startup_timeout_s=30, data_dir=None,
                 insecure_dev=True, realtime_listener=False):
        """insecure_dev: start with --insecure-dev (no API keys, tenant "dev", every role), as
        the tests written before authentication expect; test_auth.py passes False.
        realtime_listener: also a realtime listener on an ephemeral port (self.realtime_port)."""
        self.tmp = tempfile.mkdtemp(prefix="verdict-it-")
        self.port_file = os.path.join(self.tmp, "port")
        self.log_path = os.path.join(self.tmp, "verdict.log")
        args = [BINARY, "serve", "--listen", "127.0.0.1:0", "--data-dir",
                data_dir or os.path.join(self.tmp, "var"), "--port-file", self.port_file]
        if config is not None:
            path = os.path.join(self.tmp, "verdict.toml")
            with open(path, "w") as f:
                f.write(config)
            args += ["--config", path]
        if insecure_dev:
            args.append("--insecure-dev")
        realtime_port_file = os.path.join(self.tmp, "realtime_port")
        if realtime_listener:
            args += ["--realtime-listen", "127.0.0.1:0", "--realtime-port-file",
                     realtime_port_file]
        args += list(extra_args)
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + startup_timeout_s
        while not os.path.exists(self.port_file):
            if self.proc.poll() is not None:
                log = self.read_log()
                self.log.close()
                shutil.rmtree(self.tmp, ignore_errors=True)
                raise RuntimeError("verdict exited at start-up:\n" + log)
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("verdict did not start:\n" + self.read_log())
            time.sleep(0.02)
        with open(self.port_file) as f:
            self.port = int(f.read().strip())
        self.realtime_port = None
        if realtime_listener:
            # Written right after the main port file.
            while not os.path.exists(realtime_port_file) and time.monotonic() < deadline:
                time.sleep(0.02)
            with open(realtime_port_file) as f:
                self.realtime_port = int(f.read().strip())

    def read_log(self):
        self.log.flush()
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def alive(self):
        return self.proc.poll() is None

    def connection(self, timeout=30):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(self, method, path, body=None, headers=None, conn=None):
        """Returns (status, headers dict with lower-case names, body bytes)."""
        own = conn is None
        conn = conn or self.connection()
        try:
            hdrs = {"Content-Type": "application/json"} if body is not None else {}
            hdrs.update(headers or {})
            if isinstance(body, (dict, list)):
                body = json.dumps(body)
            conn.request(method, path, body=body, headers=hdrs)
            resp = conn.getresponse()
            data = resp.read()
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data
        finally:
            if own:
                conn.close()

    def json(self, method, path, body=None, headers=None, conn=None):
        status, hdrs, data = self.request(method, path, body, headers, conn)
        return status, json.loads(data) if data else None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        return self.proc.returncode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)


def transaction(tx_id="tx-0001", **overrides):
    """The DESIGN.md §7 example transaction, with overrides."""
    txn = {
        "transaction_id": tx_id,
        "timestamp": "2026-12-02T10:15:30.123Z",
        "amount": "9950.00",
        "currency": "USD",
        "sender": {"account": "ACC-1", "bank": "BANKUS33", "country": "US", "name": "John Smith"},
        "receiver": {"account": "ACC-2", "bank": "BANKGB22", "country": "GB", "name": "Acme Ltd"},
        "channel": "wire",
        "type": "transfer",
        "remittance": "invoice 4411",
        "priority": "standard",
        "deadline_ms": 200,
        "metadata": {"switch_ref": "A1"},
    }
    for key, value in overrides.items():
        if value is None:
            txn.pop(key, None)
        else:
            txn[key] = value
    return txn


def create_key(data_dir, tenant, *roles):
    """`verdict keys create` on a stopped engine's data directory: {"key": ..., "id": ...}."""
    args = [BINARY, "keys", "create", "--data-dir", data_dir, "--tenant", tenant, "--json"]
    for role in roles:
        args += ["--role", role]
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError(
            f"{' '.join(args)} exited {done.returncode}: {done.stderr.strip()[-2000:]}"
        )
    return json.loads(done.stdout)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
