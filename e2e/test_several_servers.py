"""Two Reverie servers behind the front, on one throwaway PostgreSQL (issue 32, "Two servers").

scripts/front.sh --servers 2 runs them as `make run-front SERVERS=2` does, with DATABASE_URL on a
PostgreSQL of this module's own and one data directory. Plain HTTP, no browser: each request goes
either through nginx or straight to one server (the addresses front.sh prints), so the test says
which server did what.

- A session made through the front works on both servers.
- A personal token used on both and revoked on one is refused by both (the other's one-second
  sign-in cache reads it again).
- Listening progress sent to the two servers in turn, newest first, leaves the newest place on both.
- A speech render is started on server 1, which is killed (SIGKILL) while it speaks: server 2 takes
  it over once server 1 has said nothing for a minute, speaks the whole script, and its person gets
  the audio; nginx keeps answering, through server 2, the requests it used to send to server 1.

The kill comes last: everything before it needs both servers."""

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from conftest import BINARY, OWNER, PASSWORD, ROOT, eventually

sys.path.insert(0, str(ROOT / "scripts"))
from librivox_fixture import LibriVoxFixture  # noqa: E402
from podcast_fixture import PodcastFixture  # noqa: E402

pytestmark = pytest.mark.real_speech  # the render is spoken by Piper, twice over (before and after the kill)

# A render long enough to be still speaking when server 1 is killed (about a second of Piper per
# sentence on this debug build, phrases spoken side by side), short enough to speak again in full.
SENTENCES = 16
SCRIPT = " ".join(f"Sentence {n + 1} of the evening: the lake is still, the reeds lean over the water, "
                  "and the light goes slowly out of the sky." for n in range(SENTENCES))
# After a SIGKILL: up to 60 s of silence (SpeechJobs.stalledAfter), up to 15 s to server 2's next
# job poll, then the whole render again, on a machine that may be running other tests.
TAKEOVER_TIMEOUT = 240  # seconds
# The sign-in cache keeps a token for a second (SessionAuthenticator.recheckAfter, which
# SeveralServersTests checks); the wait for both servers to refuse a revoked token
# allows a minute, as a busy machine can stall that long.
REVOCATION_TIMEOUT = 60  # seconds


# MARK: - HTTP


class NotFollowing(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer: the test looks at where it points."""

    def redirect_request(self, *_):
        return None


def call(url, method="GET", body=None, headers=None, timeout=30, follow=True):
    """One request: (status, headers, body bytes). HTTP errors are answers too, and redirects
    with `follow=False`; a refused connection raises URLError."""
    data = json.dumps(body).encode() if body is not None else None
    headers = dict(headers or {}, **({"Content-Type": "application/json"} if data is not None else {}))
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    opener = urllib.request.build_opener() if follow else urllib.request.build_opener(NotFollowing)
    try:
        with opener.open(request, timeout=timeout) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def call_json(url, method="GET", body=None, headers=None):
    """A request whose answer must be a 2xx with JSON: its decoded body."""
    status, _, data = call(url, method, body, headers)
    assert 200 <= status < 300, f"{method} {url}: {status} {data[:500]!r}"
    return json.loads(data or b"null")


# MARK: - The front, two servers and PostgreSQL


class TwoServerFront:
    """A throwaway PostgreSQL, then scripts/front.sh --servers 2 on it with an empty data directory
    of its own (its Wind Down renders shared with every test server, as ReverieProcess does) and
    the local LibriVox and podcast fixtures. `stop()` ends both whatever state they are in."""

    def __init__(self, binary):
        self.work = Path(tempfile.mkdtemp(prefix="reverie-two-servers-"))
        # Beside it, not inside: the script hands its directory to the postgres user when run as root,
        # who could not reach it through a private temporary directory.
        self.postgres_dir = Path(tempfile.mkdtemp(prefix="reverie-pg-"))
        self.data = self.work / "data"
        self.process = None
        self.librivox, self.podcasts = LibriVoxFixture(), PodcastFixture()
        self.log_path = self.work / "front.log"
        self._log = open(self.log_path, "w")
        try:
            started = subprocess.run([str(ROOT / "scripts" / "throwaway-postgres.sh"), "start", str(self.postgres_dir)],
                                     capture_output=True, text=True, timeout=120)
            assert started.returncode == 0, f"throwaway PostgreSQL did not start:\n{started.stderr}"
            self.database_url = started.stdout.strip().splitlines()[-1]
            self._start_front(binary)
        except BaseException:
            self.stop()
            raise

    def _start_front(self, binary):
        shared = ROOT / ".build" / "test-cache" / "sleep"
        shared.mkdir(parents=True, exist_ok=True)
        (self.data / "cache").mkdir(parents=True)
        (self.data / "cache" / "sleep").symlink_to(shared, target_is_directory=True)
        env = dict(os.environ, REVERIE_BINARY=str(binary), REVERIE_DATA_DIR=str(self.data), REVERIE_WEB_DIR=str(ROOT / "Web"), REVERIE_PATIENCE="10",
                   DATABASE_URL=self.database_url, LOG_LEVEL="info")
        env.update(self.librivox.env())
        env.update(self.podcasts.env())
        for name in ("SERVERS", "REVERIE_TLS_CERT", "REVERIE_TLS_KEY", "REVERIE_FRONT", "REVERIE_TLS"):
            env.pop(name, None)
        # A session (and process group) of its own: what is left of it at the end is ended with it.
        self.process = subprocess.Popen([str(ROOT / "scripts" / "front.sh"), "--servers", "2", "--port", "0", "--tls-port", "0"],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True)
        self.url = None
        self.servers = []  # each Reverie server's own address, in front.sh's order
        # front.sh's own waits are bounded (each server's start, nginx's), so each line comes or EOF does.
        for line in self.process.stdout:
            self._write(line)
            if match := re.match(r"Reverie server \d+ is at (http://\S+)", line):
                self.servers.append(match.group(1))
            if match := re.match(r"Reverie front is serving (http://\S+) and https://", line):
                self.url = match.group(1)
                break
        if not self.url or len(self.servers) != 2:
            raise RuntimeError(f"scripts/front.sh --servers 2 did not start (servers {self.servers}):\n{self.said}")
        threading.Thread(target=self._drain, daemon=True).start()

    def _write(self, line):
        self._log.write(line)
        self._log.flush()

    def _drain(self):
        for line in self.process.stdout:
            self._write(line)

    @property
    def said(self):
        """What front.sh printed, the servers' and nginx's logs, and PostgreSQL's."""
        logs = [self.log_path, *sorted((self.data / "front").glob("*.log")), self.postgres_dir / "server.log"]
        return "\n".join(f"--- {path}\n{path.read_text(errors='replace')[-20_000:]}" for path in logs if path.exists())

    @contextlib.contextmanager
    def logs_on_failure(self):
        """On an error inside, prints every log to stderr (pytest shows it with the failure)."""
        try:
            yield
        except BaseException:
            print(self.said, file=sys.stderr)
            raise

    def server_pid(self, address):
        """The process id of the Reverie server listening at `address` (http://127.0.0.1:PORT):
        the child of front.sh that holds that listening socket."""
        port = urllib.parse.urlsplit(address).port
        inodes = set()
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            with open(table) as rows:
                next(rows)
                for row in rows:
                    fields = row.split()
                    # local address HEX_IP:HEX_PORT, state 0A is LISTEN, inode is field 9
                    if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A":
                        inodes.add(f"socket:[{fields[9]}]")
        assert inodes, f"nothing listens on port {port}"
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                if parent != self.process.pid:
                    continue
                if any(os.readlink(fd) in inodes for fd in (entry / "fd").iterdir()):
                    return int(entry.name)
            except (FileNotFoundError, ProcessLookupError, PermissionError):
                continue  # a process that ended meanwhile
        raise AssertionError(f"no child of front.sh ({self.process.pid}) listens on port {port}")

    def stop(self):
        if self.process is not None:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)  # front.sh stops nginx and the servers
                try:
                    self.process.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    pass
            # Whatever is left in its group: front.sh itself if it would not stop, a speech process
            # of the killed server.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        subprocess.run([str(ROOT / "scripts" / "throwaway-postgres.sh"), "stop", str(self.postgres_dir)], timeout=120)
        self._log.close()
        shutil.rmtree(self.postgres_dir, ignore_errors=True)  # gone already, unless it never started
        self.librivox.stop()
        self.podcasts.stop()
        shutil.rmtree(self.work, ignore_errors=True)


@pytest.fixture(scope="module")
def front():
    if not BINARY.exists():
        pytest.fail(f"{BINARY} is missing: run `swift build` first (make test does).")
    instance = TwoServerFront(BINARY)
    yield instance
    instance.stop()


# MARK: - The test


def test_two_servers_share_sessions_progress_and_a_killed_servers_render(front):
    one, two = front.servers
    with front.logs_on_failure():
        # The owner is made and signs in through the front; the session works straight on either server.
        assert call(front.url + "/api/setup", "POST", {"username": OWNER, "password": PASSWORD})[0] == 201
        status, headers, body = call(front.url + "/api/auth/login", "POST", {"username": OWNER, "password": PASSWORD})
        assert status == 200, body
        session = {"Cookie": headers["Set-Cookie"].split(";")[0]}
        for server in (one, two):
            assert call_json(server + "/api/auth/me", headers=session)["user"]["username"] == OWNER, server

        revoked_token_is_refused_by_both(front, session)
        progress_through_both_keeps_the_newest_place(front, session)
        render_of_a_killed_server_is_finished_by_the_other(front, session)


def revoked_token_is_refused_by_both(front, session):
    one, two = front.servers
    created = call_json(front.url + "/api/tokens", "POST", {"name": "script"}, session)
    bearer = {"Authorization": f"Bearer {created['secret']}"}
    # Both servers read it, so both hold it in their sign-in cache.
    for server in (one, two):
        assert call(server + "/api/auth/me", headers=bearer)[0] == 200, server
    assert call(two + f"/api/tokens/{created['token']['id']}", "DELETE", headers=session)[0] == 204
    revoked = time.monotonic()
    # The server that revoked it refuses it at once; the other once its cached sign-in is read again.
    assert call(two + "/api/auth/me", headers=bearer)[0] == 401
    eventually(lambda: all(call(server + "/api/auth/me", headers=bearer)[0] == 401 for server in (one, two)),
               REVOCATION_TIMEOUT, "the token revoked on server 2 is refused by both servers", interval=0.1)
    print(f"the revoked token was refused by both servers {time.monotonic() - revoked:.1f} s after it was revoked")


def progress_through_both_keeps_the_newest_place(front, session):
    one, two = front.servers
    item = "winddown:yoga_nidra_10min"
    start = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(hours=1)
    # Two devices, each talking to a different server, their events arriving newest first.
    for n in reversed(range(12)):
        event = {"id": f"e{n}", "item": item, "device": "phone" if n % 2 == 0 else "laptop",
                 "at": (start + timedelta(seconds=15 * n)).strftime("%Y-%m-%dT%H:%M:%SZ"), "position": 15 * n, "kind": "play"}
        call_json((one if n % 2 == 0 else two) + "/api/progress/events", "POST", {"events": [event]}, session)
    for server in (one, two):
        place = call_json(server + f"/api/progress/{item}", headers=session)
        assert (place["position"], place["device"]) == (165, "laptop"), f"the place went backwards on {server}: {place}"


def render_of_a_killed_server_is_finished_by_the_other(front, session):
    one, two = front.servers
    for server in (one, two):  # a server still warming its engines would start the render late
        eventually(lambda: call_json(server + "/api/health")["status"] != "warming", 300, f"{server} still warming")

    started = call_json(one + "/api/speech/renders", "POST", {"text": SCRIPT}, session)
    assert (started["status"], started["engine"]) == ("rendering", "piper"), started
    render = f"/api/speech/renders/{started['id']}"

    def speaking_on_one():
        state = call_json(one + render, headers=session)
        assert state["status"] == "rendering", f"the render ended before server 1 could be killed: {state}"
        return state if state["progress"] > 0 else None

    state = eventually(speaking_on_one, 120, "server 1 never got past the render's first phrases", interval=0.2)
    pid = front.server_pid(one)
    os.kill(pid, signal.SIGKILL)
    killed = time.monotonic()
    print(f"server 1 (pid {pid}) killed at progress {state['progress']:.2f}")

    def refused():
        try:
            call(one + "/api/health", timeout=2)
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return True
        return False

    eventually(refused, 30, "server 1 still answers after SIGKILL", interval=0.2)

    # The front keeps serving: this session's requests, hashed to server 1 until now, go to server 2.
    assert call_json(front.url + "/api/auth/me", headers=session)["user"]["username"] == OWNER

    def done_on_two():
        state = call_json(two + render, headers=session)
        assert state["status"] != "failed", f"server 2 failed the render it took over: {state}"
        return state if state["status"] == "done" else None

    done = eventually(done_on_two, TAKEOVER_TIMEOUT, "server 2 never finished the render server 1 was speaking", interval=1)
    print(f"render done on server 2 {time.monotonic() - killed:.0f} s after server 1 was killed")
    assert done["progress"] == 1 and done["durationMs"] > 0, done

    # Server 2 sends the front's requests for the file to its signed address (the front's media
    # key is shared by both servers); through the front, its person gets the bytes from nginx.
    status, headers, _ = call(two + render + "/audio", headers=session, follow=False)
    assert status == 307 and headers["Location"].startswith("/_media/mp4/"), (status, dict(headers))
    assert (front.data / urllib.parse.unquote(headers["Location"].split("?")[0].removeprefix("/_media/mp4/"))).stat().st_size > 0
    status, headers, audio = call(front.url + render + "/audio", headers=session)
    assert status == 200 and headers["Content-Type"] == "audio/mp4", (status, dict(headers))
    assert len(audio) > 0 and audio[4:8] == b"ftyp", audio[:16]
    # The whole script was spoken, every sentence in order, not only what was left of it.
    status, _, captions = call(front.url + render + "/captions.vtt", headers=session)
    assert status == 200, captions[:500]
    spoken = [int(n) for n in re.findall(r"Sentence (\d+) of the evening", captions.decode())]
    assert spoken == list(range(1, SENTENCES + 1)), spoken
