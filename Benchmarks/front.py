#!/usr/bin/env python3
"""make bench, front section: Reverie behind nginx as scripts/front.sh starts it (`make run-front`,
issue 32), on loopback over plain HTTP, each figure beside its peer measured in the same run:

  - the app shell (GET /) through the front beside nginx serving the same file alone, with the same
    open_file_cache (goal: >= 0.9x);
  - 64 KiB Range reads at random places of an hour-long M4A through the front beside nginx serving
    the file alone (goal: >= 0.9x). As a player reads: it asks Reverie for the file once (signed
    in; Reverie answers a redirect to a signed address), then reads ranges of that address, which
    nginx checks and serves alone. Beside them, the redirect itself, and the other way media can
    go (FRONT_MEDIA=accel, the same front restarted on the same data): every read signed in,
    through Reverie, which answers X-Accel-Redirect for nginx to send the bytes;
  - signed-in reads (GET /api/auth/me, the song list of 2,000 songs) through the front beside the
    same reads straight to the one Reverie server behind it (goal: >= 0.8x);
  - 20,000 idle keep-alive connections (--idle) held open, each having asked for HEAD / once,
    while new clients come: a wrk run of the app shell through the front, and 1,000 requests each on a
    fresh connection (the app shell and GET /api/auth/me in turn), with their success rate and
    latency beside the same without the idle connections (goal: every request answered 200 and
    every idle connection still open). The idle connections are held by several processes, each
    under its own RLIMIT_NOFILE, each from its own loopback address (127.0.0.2, …), as clients
    on many addresses would be.

Then the CPU time each request cost nginx and Reverie at 64 clients (from /proc), beside the
peer's: where the machine's cores go when wrk, nginx and Reverie share them.

    .venv/bin/python Benchmarks/front.py [--binary .build/release/reverie] [--seconds 5] [--idle 20000] [--rounds 3]
"""

import argparse
import concurrent.futures
import http.client
import multiprocessing
import os
import random
import resource
import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from front_process import FrontProcess  # noqa: E402
from load import start_nginx, stop_all, store_songs, wrk  # noqa: E402
from media import CHUNK, ITEM, hour_long_item, range_script  # noqa: E402
from reverie_process import ROOT  # noqa: E402

CONNECTIONS = (16, 64)
HOLDER_SHARE = 5000  # idle connections per holding process
FRESH = 1000  # requests on fresh connections, with and without the idle ones


# MARK: - Idle connections, held by processes of their own

def hold_idle(source, address, count, pipe):
    """Opens `count` connections from `source` to the front at `address`, each asking HEAD / once
    (a few at a time, under the front's per-address limit) and then left idle with keep-alive.
    Sends ("opened", n, error); on "check" sends ("open", how many the front has not closed); on
    "close" closes them all and ends."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < count + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 64), hard))
    held, error = [], None
    request = b"HEAD / HTTP/1.1\r\nHost: reverie\r\n\r\n"
    try:
        while len(held) < count:
            batch = []
            for _ in range(min(32, count - len(held))):
                connection = socket.socket()
                batch.append(connection)
                connection.settimeout(10)
                connection.bind((source, 0))
                connection.connect(address)
                connection.sendall(request)
            for connection in batch:
                answer = b""
                while b"\r\n\r\n" not in answer:
                    chunk = connection.recv(4096)
                    if not chunk:
                        raise ConnectionError(f"closed after {len(held)} connections")
                    answer += chunk
                if not answer.startswith(b"HTTP/1.1 200"):
                    status = answer.split(b"\r\n")[0].decode()
                    raise ConnectionError(f"answered {status} after {len(held)} connections")
                held.append(connection)
    except OSError as problem:
        error = f"{type(problem).__name__}: {problem}"
    pipe.send(("opened", len(held), error))
    while (command := pipe.recv()) != "close":
        if command == "check":
            still = 0
            for connection in held:
                connection.setblocking(False)
                try:
                    still += connection.recv(1, socket.MSG_PEEK) != b""
                except BlockingIOError:
                    still += 1  # nothing to read and not closed: open
                except OSError:
                    pass
            pipe.send(("open", still))
    for connection in held:
        connection.close()


class IdleConnections:
    """`count` idle connections to `address`, shared among processes of HOLDER_SHARE each (fewer
    when the open-file limit, `limit`, is lower)."""

    def __init__(self, address, count, limit):
        context = multiprocessing.get_context("fork")
        share = max(1, min(HOLDER_SHARE, limit - 64))
        self.holders = []
        started = time.monotonic()
        for index, first in enumerate(range(0, count, share)):
            ours, theirs = context.Pipe()
            process = context.Process(target=hold_idle, args=(f"127.0.0.{index + 2}", address, min(share, count - first), theirs),
                                      daemon=True)
            process.start()
            self.holders.append((process, ours))
        answers = [pipe.recv() for _, pipe in self.holders]
        self.seconds = time.monotonic() - started
        self.opened = sum(answer[1] for answer in answers)
        self.errors = [answer[2] for answer in answers if answer[2]]

    def still_open(self):
        for _, pipe in self.holders:
            pipe.send("check")
        return sum(pipe.recv()[1] for _, pipe in self.holders)

    def close(self):
        for process, pipe in self.holders:
            if process.is_alive():
                pipe.send("close")
            process.join(timeout=30)
            if process.is_alive():
                process.kill()


# MARK: - Where the time goes: CPU seconds per request, from /proc

def cpu_seconds(pids):
    """User and system CPU seconds the processes `pids` have used so far."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (proc(5): fields 14 and 15)
    return total / os.sysconf("SC_CLK_TCK")


def processes_where(test):
    """The pids whose /proc/<pid>/stat and cmdline pass test(ppid, cmdline)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except (FileNotFoundError, ProcessLookupError):
                continue
            if test(ppid, cmdline):
                found.append(int(entry.name))
    return found


def measured(groups, url, connections, seconds, headers=(), script=None):
    """wrk(...), with "cpu": each group's CPU time per request in microseconds ({name: pids})."""
    before = {name: cpu_seconds(pids) for name, pids in groups.items()}
    result = wrk(url, connections, seconds, headers, script)
    requests = max(1.0, result["rate"] * seconds)
    result["cpu"] = {name: (cpu_seconds(pids) - before[name]) / requests * 1e6 for name, pids in groups.items()}
    return result


def median_run(results):
    """The run with the median rate (its CPU figures with it)."""
    return sorted(results, key=lambda result: result["rate"])[len(results) // 2]


# MARK: - Fresh connections

def fresh_requests(host, port, bearer, count=FRESH, threads=16):
    """`count` requests, each on a new connection, `threads` at a time: GET / and GET /api/auth/me
    in turn. Returns (answered 200 out of 1, latencies in ms, the first failure or None)."""
    def one(index):
        path, headers = ("/", {}) if index % 2 == 0 else ("/api/auth/me", {"Authorization": bearer})
        started = time.monotonic()
        connection = http.client.HTTPConnection(host, port, timeout=10)
        try:
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            response.read()
            return response.status, (time.monotonic() - started) * 1000, None if response.status == 200 else f"{path}: {response.status}"
        except OSError as problem:
            return None, None, f"{path}: {type(problem).__name__}: {problem}"
        finally:
            connection.close()

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        results = list(pool.map(one, range(count)))
    latencies = sorted(latency for status, latency, _ in results if status == 200)
    failure = next((problem for _, _, problem in results if problem), None)
    return len(latencies) / count, latencies, failure


def percentile(values, fraction):
    return values[min(len(values) - 1, int(len(values) * fraction))] if values else float("nan")


# MARK: - The run

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=str(ROOT / ".build/release/reverie"))
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--idle", type=int, default=20_000, help="idle connections to hold open (default 20,000)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each figure, the median kept (default 3)")
    args = parser.parse_args()
    for tool in ("wrk", "nginx", "ffmpeg"):
        if not shutil.which(tool) and not Path(f"/usr/sbin/{tool}").exists():
            raise SystemExit(f"{tool} is missing: scripts/bootstrap.sh bench installs it")

    work = Path(tempfile.mkdtemp(prefix="reverie-front-bench-"))
    processes = []
    front = None
    try:
        # MARK: the front: nginx and one Reverie server (SQLite: one server's file)
        front = FrontProcess(args.binary, prefix="reverie-front-bench-", log_level="error")
        host, port = "127.0.0.1", front.port
        server = front.upstreams[0]
        token = front.owner_token("bench", "a long enough password", "front")
        bearer = f"Bearer {token}"
        front.wait_until_warm(seconds=300)
        store_songs(front.url, token, random.Random(7))
        stored, _ = hour_long_item(front.url, bearer, work, front.data)
        size = stored.stat().st_size

        # MARK: nginx alone, with the same files
        # With the front's file cache (open_file_cache), so the figures compare what the front
        # adds, not the cache: without it in the peer the front's shell ran at 1.4x of it.
        nginx, nginx_port = start_nginx(work, "text/html html; audio/mp4 m4a;",
                                        "open_file_cache max=4000 inactive=60s; open_file_cache_valid 10s; open_file_cache_errors on; "
                                        f'root {ROOT / "Web"}; location = / {{ try_files /index.html =404; }} '
                                        f"location = /hour.m4a {{ alias {stored}; }}")
        processes.append(nginx)
        alone = f"http://127.0.0.1:{nginx_port}"
        audio = f"/api/winddown/{ITEM}/audio"

        # The processes each figure is served by, for the CPU each request costs them.
        front_master = int((front.data / "front" / "nginx.pid").read_text())
        alone_nginx = {"nginx": processes_where(lambda ppid, _: ppid == nginx.pid)}
        reverie = {"reverie": processes_where(lambda _, cmdline: " serve " in cmdline and str(front.data) in cmdline)}
        through = {"nginx": processes_where(lambda ppid, _: ppid == front_master), **reverie}

        seconds = args.seconds
        signed_in = [f"Authorization: {bearer}"]
        # Where a player is sent for the file: its signed address, read from then on without Reverie.
        answer = http.client.HTTPConnection(host, port, timeout=60)
        answer.request("GET", audio, headers={"Authorization": bearer})
        redirect = answer.getresponse()
        redirect.read()
        signed = redirect.getheader("Location") or ""
        answer.close()
        if redirect.status != 307 or not signed.startswith("/_media/"):
            raise SystemExit(f"the front did not send the player to a signed address: {redirect.status} {signed!r}")

        figures = {key: [] for key in ("shell_alone", "shell", "ranges_alone", "ranges", "redirect", "ranges_accel",
                                       "me_direct", "me", "list_direct", "list")}
        def plan(connections):
            """Each figure beside its peer, one right after the other."""
            return [
                ("shell_alone", lambda: measured(alone_nginx, alone + "/", connections, seconds)),
                ("shell", lambda: measured(through, front.url + "/", connections, seconds)),
                ("ranges_alone", lambda: measured(alone_nginx, alone + "/hour.m4a", connections, seconds,
                                                  script=range_script(work, "/hour.m4a", size))),
                ("ranges", lambda: measured(through, front.url + signed, connections, seconds, script=range_script(work, signed, size))),
                ("redirect", lambda: measured(through, front.url + audio, connections, seconds, signed_in)),
                ("me_direct", lambda: measured(reverie, server + "/api/auth/me", connections, seconds, signed_in)),
                ("me", lambda: measured(through, front.url + "/api/auth/me", connections, seconds, signed_in)),
                ("list_direct", lambda: measured(reverie, server + "/api/compositions", connections, seconds, signed_in)),
                ("list", lambda: measured(through, front.url + "/api/compositions", connections, seconds, signed_in)),
            ]

        # Several rounds, each figure's median kept: on a shared machine one run of nginx alone
        # varied by a fifth from the next, more than the gaps measured here.
        runs = {key: [[] for _ in CONNECTIONS] for key in figures}
        for _ in range(args.rounds):
            for index, connections in enumerate(CONNECTIONS):
                for key, run in plan(connections):
                    runs[key][index].append(run())
        for key, by_connections in runs.items():
            if by_connections[0]:
                figures[key] = [median_run(results) for results in by_connections]

        # The same front on the same data with FRONT_MEDIA=accel: every read through Reverie.
        front.restart(log_level="error", environment={"FRONT_MEDIA": "accel"})
        front_master = int((front.data / "front" / "nginx.pid").read_text())
        through_accel = {"nginx": processes_where(lambda ppid, _: ppid == front_master),
                         "reverie": processes_where(lambda _, cmdline: " serve " in cmdline and str(front.data) in cmdline)}
        for connections in CONNECTIONS:
            figures["ranges_accel"].append(median_run([measured(through_accel, front.url + audio, connections, seconds,
                                                                script=range_script(work, audio, size, bearer)) for _ in range(args.rounds)]))
        host, port = "127.0.0.1", front.port

        print(f"the front on loopback: scripts/front.sh (nginx, {os.cpu_count()} workers; one Reverie server on SQLite), "
              f"plain HTTP, 2 wrk threads, {seconds} s each, the median of {args.rounds} rounds")
        print(f"{'figure':<48}" + "".join(f"{f'{c} clients':>14}" for c in CONNECTIONS) + "   ratio / goal")
        goals_met = True

        def line(label, key, peer=None, peer_name="", goal=None, unit="req/s", scale=1.0):
            nonlocal goals_met
            results = figures[key]
            text = f"{label:<48}" + "".join(f"{r['rate'] * scale:>9.0f} {unit:<4}" for r in results)
            if peer:
                ratios = [r["rate"] / p["rate"] for r, p in zip(results, figures[peer])]
                ok = all(ratio >= goal for ratio in ratios)
                goals_met &= ok
                text += "   " + " / ".join(f"{ratio:.2f}" for ratio in ratios) + f" of {peer_name} (goal >= {goal:.2f}: {'met' if ok else 'NOT met'})"
            problems = sum(r["non2xx"] + r["timeouts"] for r in results)
            if problems:
                goals_met = False
                text += f"  [{problems} non-2xx or timeouts]"
            print(text)

        mb = CHUNK / 1e6
        line("app shell, nginx alone", "shell_alone")
        line("app shell, through the front", "shell", "shell_alone", "nginx alone", 0.9)
        line(f"64 KiB ranges of a 60-min M4A ({size / 1e6:.0f} MB), nginx alone", "ranges_alone", unit="MB/s", scale=mb)
        line("64 KiB ranges, through the front (signed address)", "ranges", "ranges_alone", "nginx alone", 0.9, unit="MB/s", scale=mb)
        line("  the redirect to it (signed in, Reverie)", "redirect")
        line("64 KiB ranges, each through Reverie (accel)", "ranges_accel", unit="MB/s", scale=mb)
        line("GET /api/auth/me, one server directly", "me_direct")
        line("GET /api/auth/me, through the front", "me", "me_direct", "one server", 0.8)
        line("song list (2,000 songs), one server directly", "list_direct")
        line("song list, through the front", "list", "list_direct", "one server", 0.8)

        # Where the time goes: on a machine with few cores, wrk, nginx and Reverie share them, so
        # nginx's time per proxied request is taken from Reverie's.
        def cpu(key):
            return " + ".join(f"{name} {us:.0f} µs" if us < 10_000 else f"{name} {us / 1000:.1f} ms"
                              for name, us in figures[key][-1]["cpu"].items())
        print(f"CPU per request at {CONNECTIONS[-1]} clients ({os.cpu_count()} cores shared by wrk, nginx and Reverie):")
        for label, peer, ours in (("app shell", "shell_alone", "shell"), ("64 KiB ranges", "ranges_alone", "ranges"),
                                  ("ranges, accel", "ranges_alone", "ranges_accel"),
                                  ("GET /api/auth/me", "me_direct", "me"), ("song list", "list_direct", "list")):
            print(f"  {label:<20}{'alone' if 'alone' in peer else 'one server'}: {cpu(peer)};  through the front: {cpu(ours)}")

        # MARK: idle connections, then new clients
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        before = fresh_requests(host, port, bearer)
        idle = IdleConnections((host, port), args.idle, hard)
        try:
            shell = wrk(front.url + "/", CONNECTIONS[-1], seconds)
            during = fresh_requests(host, port, bearer)
            still = idle.still_open()
        finally:
            idle.close()
        print(f"{args.idle:,} idle keep-alive connections: {idle.opened:,} opened in {idle.seconds:.1f} s by {len(idle.holders)} "
              f"process{'es' if len(idle.holders) > 1 else ''} "
              f"(each under an open-file limit of {hard:,}), {still:,} still open after the run"
              + (f"; {'; '.join(idle.errors)}" if idle.errors else ""))
        ok_shell = shell["non2xx"] + shell["timeouts"] == 0
        print(f"{f'  app shell through the front, {CONNECTIONS[-1]} clients':<48}{shell['rate']:>9.0f} req/s, p99 {shell['p99']:.1f} ms, "
              f"{shell['non2xx'] + shell['timeouts']} non-2xx or timeouts   {shell['rate'] / figures['shell'][-1]['rate']:.2f} of the same without them")
        for label, (rate, latencies, failure) in (("fresh connections, no idle ones", before), ("fresh connections, idle ones held", during)):
            print(f"  {FRESH:,} {label:<44}{rate:>8.1%} answered 200, p50 {percentile(latencies, 0.5):.1f} ms, "
                  f"p99 {percentile(latencies, 0.99):.1f} ms" + (f"  [first failure: {failure}]" if failure else ""))
        ok_idle = idle.opened == args.idle and still == idle.opened and ok_shell and during[0] == 1.0
        goals_met &= ok_idle
        print(f"  goal: every new request answered while {args.idle:,} idle connections stay open: {'met' if ok_idle else 'NOT met'}")
        full = (front.data / "front" / "error.log").read_text().count("worker_connections are not enough")
        if full:
            print(f"  nginx said 'worker_connections are not enough' {full} times")

        if not front.alive():
            raise SystemExit("the front died during the run")
        print("front goals:", "all met" if goals_met else "NOT all met")
        return 0
    finally:
        stop_all(processes, work, None)
        if front:
            front.stop()


if __name__ == "__main__":
    sys.exit(main())
