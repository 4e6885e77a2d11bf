#!/usr/bin/env python3
"""The robustness run in `make test`: schemathesis against every route in Web/openapi.yaml.

Starts a real `reverie serve` (SQLite, the real speech engines and rhymes index) on a free port
with an empty data directory, creates the owner and a personal token, then runs schemathesis
signed in with that token: generated and boundary examples for every operation, then the
stateful phase that follows links between operations. It fails on any 5xx
(`not_a_server_error`), any response the document does not describe
(`response_schema_conformance`, `status_code_conformance`), and when the server process is no
longer alive at the end.

    scripts/robustness.py [--binary .build/debug/reverie] [--examples 12] [--seed 20261123]
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def request(url, method="GET", body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    headers = dict(headers or {}, **({"Content-Type": "application/json"} if data else {}))
    with urllib.request.urlopen(urllib.request.Request(url, data=data, method=method, headers=headers)) as response:
        return response.status, response.headers, json.loads(response.read() or b"null")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=os.environ.get("REVERIE_BINARY", str(ROOT / ".build/debug/reverie")))
    parser.add_argument("--examples", type=int, default=int(os.environ.get("ROBUSTNESS_EXAMPLES", "12")))
    parser.add_argument("--seed", type=int, default=20261123)
    args = parser.parse_args()

    data = Path(tempfile.mkdtemp(prefix="reverie-robustness-"))
    log = open(data / "server.log", "w+")
    env = dict(os.environ, REVERIE_WEB_DIR=str(ROOT / "Web"), LOG_LEVEL="warning")
    env.pop("DATABASE_URL", None)
    server = subprocess.Popen([args.binary, "serve", "--port", "0", "--data-dir", str(data)],
                              stdout=subprocess.PIPE, stderr=log, text=True, env=env)
    try:
        url = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not url:
            line = server.stdout.readline()
            if not line:
                break
            match = re.search(r"serving (http://\S+)", line)
            url = match.group(1) if match else None
        if not url:
            raise SystemExit("reverie serve did not start")
        # The server logs to standard output: keep reading it into the log (a full pipe would stall it).
        threading.Thread(target=lambda: [log.write(line) or log.flush() for line in server.stdout], daemon=True).start()

        _, headers, _ = request(url + "/api/setup", "POST", {"username": "robust", "password": "a long enough password"})
        cookie = headers["Set-Cookie"].split(";")[0]
        _, _, token = request(url + "/api/tokens", "POST", {"name": "schemathesis"}, {"Cookie": cookie})
        # Let the warm-up finish, so slow first requests do not count against the run's time.
        for _ in range(240):
            if request(url + "/api/health")[2]["status"] != "warming":
                break
            time.sleep(0.5)

        command = [
            str(ROOT / ".venv/bin/schemathesis"), "run", str(ROOT / "Web/openapi.yaml"), "--url", url,
            "-H", f"Authorization: Bearer {token['secret']}",
            "--checks", "not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance",
            "--phases", "examples,fuzzing,stateful",
            "--max-examples", str(args.examples), "--seed", str(args.seed),
            "--generation-database", "none", "--workers", "2", "--request-timeout", "30",
            # Signing out would end the run's own session; removing its token likewise.
            "--exclude-path", "/api/auth/logout",
            "--exclude-path-regex", "^/api/tokens/",
            "--no-color", "--output-truncate", "true",
        ]
        print("==> schemathesis against", url, "(examples per operation:", args.examples, "seed:", args.seed, ")", flush=True)
        result = subprocess.run(command, cwd=data)
        alive = server.poll() is None and request(url + "/api/health")[0] == 200
        if not alive:
            log.seek(0)
            print(log.read()[-5000:])
            print("FAILED: the server is no longer alive after the run")
            return 1
        log.seek(0)
        errors = [line for line in log if "error" in line.lower()]
        if errors:
            print(f"The server logged {len(errors)} errors during the run; the first:\n" + "".join(errors[:20]))
        return result.returncode
    finally:
        if server.poll() is None:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
        log.close()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
