"""scripts/front.sh of its own (`make run-front`): Reverie behind nginx, for the front's browser
tests (e2e/test_front.py) and its benchmark (Benchmarks/front.py).

One Reverie server on SQLite, on free ports, with an empty data directory of its own whose Wind
Down renders are shared with every test server (as ReverieProcess does), and local LibriVox and
podcast fixtures in place of the real sites. Everything front.sh prints goes to `front.log` in
the data directory, read as it comes so that a full pipe can never stall it.
"""

import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import urllib.parse
from pathlib import Path

from librivox_fixture import LibriVoxFixture
from podcast_fixture import PodcastFixture
from reverie_process import ROOT, ReverieProcess


class FrontProcess:
    def __init__(self, binary, prefix="reverie-front-", log_level="warning", environment=None):
        """`environment` is added to front.sh's (FRONT_IDLE_TIMEOUT=3s, FRONT_WORKER_CONNECTIONS=…)."""
        self.librivox, self.podcasts = LibriVoxFixture(), PodcastFixture()
        self.data = Path(tempfile.mkdtemp(prefix=prefix))
        shared = ROOT / ".build" / "test-cache" / "sleep"
        shared.mkdir(parents=True, exist_ok=True)
        (self.data / "cache").mkdir()
        (self.data / "cache" / "sleep").symlink_to(shared, target_is_directory=True)
        self.binary = binary
        self._start(log_level, environment)

    def _start(self, log_level, environment):
        env = dict(os.environ, REVERIE_BINARY=str(self.binary), REVERIE_WEB_DIR=str(ROOT / "Web"), LOG_LEVEL=log_level,
                   REVERIE_PATIENCE="10")  # fixture hosts and first sounds on a busy machine
        env.update(self.librivox.env())
        env.update(self.podcasts.env())
        for name in ("DATABASE_URL", "REVERIE_TLS_CERT", "REVERIE_TLS_KEY", "REVERIE_FRONT", "REVERIE_TLS", "FRONT_MEDIA"):
            env.pop(name, None)
        env.update(environment or {})
        self.log_path = self.data / "front.log"
        self._log = open(self.log_path, "a")
        # A session of its own, so that a front.sh that will not stop can be ended with its children.
        self.process = subprocess.Popen([str(ROOT / "scripts" / "front.sh"), "--port", "0", "--tls-port", "0", "--data-dir", str(self.data)],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True)
        self.url = self.https_url = None
        self.upstreams = []  # each Reverie server's own address, behind nginx
        # front.sh's own waits are bounded (a server's start, nginx's), so each line comes or EOF does.
        for line in self.process.stdout:
            self._write(line)
            if match := re.match(r"Reverie server \d+ is at (http://\S+)", line):
                self.upstreams.append(match.group(1))
            if match := re.match(r"Reverie front is serving (http://\S+) and (https://\S+)", line):
                self.url, self.https_url = match.group(1), match.group(2)
                break
        if not self.url:
            said = self.said
            self.stop()
            raise RuntimeError("scripts/front.sh did not start:\n" + said)
        self.port = urllib.parse.urlsplit(self.url).port
        self.tls_port = urllib.parse.urlsplit(self.https_url).port
        threading.Thread(target=self._drain, daemon=True).start()

    def _write(self, line):
        self._log.write(line)
        self._log.flush()

    def _drain(self):
        for line in self.process.stdout:
            self._write(line)

    @property
    def said(self):
        """What front.sh printed so far, and the logs in its run directory."""
        logs = [self.log_path, *sorted((self.data / "front").glob("*.log"))]
        return "\n".join(f"--- {path.name}\n{path.read_text()}" for path in logs if path.exists())

    # Through the front, as on one server: they only need `self.url`.
    alive = ReverieProcess.alive
    owner_token = ReverieProcess.owner_token
    wait_until_warm = ReverieProcess.wait_until_warm

    def restart(self, log_level="warning", environment=None):
        """front.sh stopped and started again on the same data directory (the same people, files
        and tokens) with `environment` in place of the first one's."""
        self._stop_front()
        self._start(log_level, environment)

    def stop(self):
        self._stop_front()
        self.librivox.stop()
        self.podcasts.stop()
        shutil.rmtree(self.data, ignore_errors=True)

    def _stop_front(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self._log.close()

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.stop()
