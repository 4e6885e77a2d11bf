#!/usr/bin/env python3
"""make bench, load section: wrk on loopback against a release `reverie serve` with 2,000 songs.

Printed side by side, each with its ratio to a peer measured in the same run:
  - the app shell (GET /) from our server beside nginx serving the same file (goal: >= 50%);
  - a signed-in read (GET /api/auth/me) beside our own anonymous shell (goal: >= 50%), and the
    signed-in song list, search and GET /api/health beside it too;
  - search p99 at 64 clients (goal: <= 100 ms);
  - creates per second with 2 MB and with 50 MB of stored lyrics (goal: within 1.5x).

    .venv/bin/python Benchmarks/load.py [--binary .build/release/reverie] [--seconds 5]
"""

import argparse
import concurrent.futures
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from reverie_process import ROOT, ReverieProcess, call  # noqa: E402

WORDS = ("moon river light night bright silver morning harbour lantern meadow whisper thunder velvet "
         "ember hollow willow cinder marble candle shadow feather violet ocean garden winter").split()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def lyrics(rng, characters):
    lines, size = [], 0
    while size < characters:
        line = " ".join(rng.choice(WORDS) for _ in range(6))
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)[:characters]


def store_songs(url, token, rng, songs=None, threads=8):
    """Stores `songs` ((title, lyrics) pairs) for the token's owner; without them, 2,000 songs of
    1,000 characters (about 2 MB of lyrics), one of them the only "quillwort"."""
    if songs is None:
        songs = [(f"Song {i} {rng.choice(WORDS)}", lyrics(rng, 1000)) for i in range(2000)]
        songs[17] = ("The Quillwort Song", songs[17][1] + "\nquillwort by the water")
    auth = {"Authorization": f"Bearer {token}"}

    def create(song):
        return call(url + "/api/compositions", "POST", {"title": song[0], "lyrics": song[1]}, auth)[0]

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        assert set(pool.map(create, songs)) == {201}


def wrk(url, connections, seconds, headers=(), script=None):
    command = ["wrk", "-t", "2", "-c", str(connections), "-d", f"{seconds}s", "--latency", "--timeout", "5s"]
    for header in headers:
        command += ["-H", header]
    if script:
        command += ["-s", script]
    output = subprocess.run(command + [url], capture_output=True, text=True, check=True).stdout
    # wrk stops sending, but the server still works through what it has accepted: let that drain
    # so it does not count against the next figure.
    time.sleep(3)
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))

    def latency(label):
        match = re.search(rf"\s{label}%\s+([\d.]+)(us|ms|s)\b", output)
        value, unit = float(match.group(1)), match.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    timeouts = re.search(r"timeout (\d+)", output)
    return {"rate": rate, "p99": latency("99"), "non2xx": int(errors.group(1)) if errors else 0,
            "timeouts": int(timeouts.group(1)) if timeouts else 0}


def start_nginx(work, types, server_block):
    """Debian's nginx on a free loopback port with 2 workers, logging nothing; returns (process, port).
    Started as root, its workers stay root, as scripts/front.sh has them: as nobody they could not
    read a server's data directory (mkdtemp's 0700) and would answer 403."""
    port = free_port()
    user = "user root;" if os.geteuid() == 0 else ""
    (work / "nginx.conf").write_text(f"""
{user} worker_processes 2; daemon off; pid {work}/nginx.pid; error_log {work}/nginx-error.log;
events {{ worker_connections 4096; }}
http {{
  access_log off; client_body_temp_path {work}/nginx-body; proxy_temp_path {work}/nginx-proxy;
  fastcgi_temp_path {work}/nginx-fcgi; uwsgi_temp_path {work}/nginx-uwsgi; scgi_temp_path {work}/nginx-scgi;
  types {{ {types} }}
  server {{ listen 127.0.0.1:{port}; {server_block} }}
}}""")
    process = subprocess.Popen(["/usr/sbin/nginx", "-c", str(work / "nginx.conf"), "-e", str(work / "nginx-error.log")],
                               stderr=subprocess.DEVNULL)
    # Ready when it answers on its port (not after a guess at how long that takes).
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, port
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"nginx did not start; see {work / 'nginx-error.log'}")


def stop_all(processes, work, reverie):
    """Stops what a benchmark started and removes its scratch folder."""
    for process in processes:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
    shutil.rmtree(work, ignore_errors=True)
    if reverie:
        reverie.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=str(ROOT / ".build/release/reverie"))
    parser.add_argument("--seconds", type=int, default=5)
    args = parser.parse_args()
    for tool in ("wrk", "nginx"):
        if not shutil.which(tool) and not Path(f"/usr/sbin/{tool}").exists():
            raise SystemExit(f"{tool} is missing: scripts/bootstrap.sh bench installs it")

    work = Path(tempfile.mkdtemp(prefix="reverie-load-"))
    processes = []
    reverie = None
    try:
        # MARK: our server
        reverie = ReverieProcess(args.binary, prefix="reverie-load-", log_level="error")
        processes.append(reverie.process)
        url = reverie.url

        # MARK: nginx with the same file
        nginx, nginx_port = start_nginx(work, "text/html html;", f'root {ROOT / "Web"}; location = / {{ try_files /index.html =404; }}')
        processes.append(nginx)

        # MARK: an owner, a token, 2,000 songs (about 2 MB of lyrics)
        token = reverie.owner_token("bench", "a long enough password", "load")
        # Measure a settled server: the warm-up speaks the narration (seconds of Piper) at start.
        reverie.wait_until_warm(seconds=300)
        rng = random.Random(7)
        store_songs(url, token, rng)
        time.sleep(1)

        bearer = f"Authorization: Bearer {token}"
        seconds = args.seconds
        rows = []
        goals_met = True
        print(f"load on loopback, 2 wrk threads, {seconds} s each, 2,000 songs stored")
        print(f"{'figure':<44}{'16 clients':>14}{'64 clients':>14}   ratio / goal")
        for connections in (16, 64):
            shell_nginx = wrk(f"http://127.0.0.1:{nginx_port}/", connections, seconds)
            shell = wrk(url + "/", connections, seconds)
            me = wrk(url + "/api/auth/me", connections, seconds, [bearer])
            listing = wrk(url + "/api/compositions", connections, seconds, [bearer])
            search = wrk(url + "/api/compositions?q=quillwort", connections, seconds, [bearer])
            search_wide = wrk(url + "/api/compositions?q=moon", connections, seconds, [bearer])
            health = wrk(url + "/api/health", connections, seconds)
            rows.append(dict(shell_nginx=shell_nginx, shell=shell, me=me, listing=listing, search=search, search_wide=search_wide, health=health))

        def line(label, key, ratio_to=None, goal=None, unit="req/s"):
            global_ok = True
            values = [row[key] for row in rows]
            text = f"{label:<44}" + "".join(f"{v['rate']:>10.0f} {unit[:5]:<3}" for v in values)
            if ratio_to:
                ratios = [row[key]["rate"] / row[ratio_to]["rate"] for row in rows]
                text += "   " + " / ".join(f"{r:.2f}" for r in ratios) + f" of {ratio_to.replace('_', ' ')}"
                if goal:
                    ok = all(r >= goal for r in ratios)
                    global_ok = ok
                    text += f" (goal >= {goal:.2f}: {'met' if ok else 'NOT met'})"
            problems = sum(v["non2xx"] + v["timeouts"] for v in values)
            if problems:
                text += f"  [{problems} non-2xx or timeouts]"
                global_ok = False
            print(text)
            return global_ok

        goals_met &= line("app shell, nginx", "shell_nginx")
        goals_met &= line("app shell, reverie (anonymous)", "shell", "shell_nginx", 0.5)
        goals_met &= line("GET /api/auth/me (a signed-in read)", "me", "shell", 0.5)
        goals_met &= line("song list, 2,000 songs (signed in)", "listing", "shell")
        goals_met &= line("search, 1 hit (signed in)", "search", "shell")
        goals_met &= line("search, 2,000 hits (signed in)", "search_wide", "shell")
        goals_met &= line("GET /api/health (a database query)", "health", "shell")
        p99 = rows[1]["search"]["p99"]
        print(f"{'search p99 at 64 clients':<44}{p99:>24.1f} ms   goal <= 100 ms: {'met' if p99 <= 100 else 'NOT met'}")
        goals_met &= p99 <= 100

        # MARK: write cost as lyrics grow from 2 MB to 50 MB
        script = work / "create.lua"
        body = json.dumps({"title": "Bench write", "lyrics": lyrics(rng, 1000)})
        script.write_text(f"wrk.method = 'POST'\nwrk.body = {json.dumps(body)}\nwrk.headers['Content-Type'] = 'application/json'\n")
        small = wrk(url + "/api/compositions", 16, seconds, [bearer], str(script))
        big_songs = [(f"Long {i}", lyrics(rng, 99_000)) for i in range(490)]
        store_songs(url, token, rng, big_songs, threads=4)
        large = wrk(url + "/api/compositions", 16, seconds, [bearer], str(script))
        ratio = small["rate"] / large["rate"]
        print(f"{'creates/s with 2 MB, then 50 MB of lyrics':<44}{small['rate']:>10.0f} req/s{large['rate']:>10.0f} req/s   "
              f"{ratio:.2f}x slower at 50 MB (goal <= 1.5x: {'met' if ratio <= 1.5 else 'NOT met'})")
        goals_met &= ratio <= 1.5
        if not reverie.alive():
            raise SystemExit("the server died during the load run")
        print("load goals:", "all met" if goals_met else "NOT all met")
        return 0
    finally:
        stop_all(processes, work, reverie)

if __name__ == "__main__":
    sys.exit(main())
