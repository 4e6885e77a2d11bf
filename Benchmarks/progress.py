#!/usr/bin/env python3
"""make bench, progress section (issue 33): listening progress as a long audiobook makes it, on a
release `reverie serve` with SQLite, each figure beside its peer from the same run:

  - one event's cost (POST /api/progress/events, one event, one connection at a time, the median
    of 300) on an item with no events yet, beside the same after 5,000 events on that item
    (goal: within 1.5x of the first);
  - GET /api/progress/{item} on a fresh item beside the same after 5,000 events (goal: within 1.5x);
  - a mixed load through wrk, each client in turn writing an event of its own book, reading its
    place and reading the library: 64 clients beside 16 (goal: at least the throughput of 16).

    .venv/bin/python Benchmarks/progress.py [--binary .build/release/reverie] [--seconds 5]
"""

import argparse
import http.client
import json
import statistics
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from load import wrk  # noqa: E402
from reverie_process import ROOT, ReverieProcess  # noqa: E402

HISTORY = 5000
SAMPLES = 300
CONNECTIONS = (16, 64)


def stamp(moment):
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class Client:
    """One keep-alive connection to the server, signed in with a token."""

    def __init__(self, port, token):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def send(self, method, path, body=None):
        """(seconds, status, decoded body)."""
        data = json.dumps(body).encode() if body is not None else None
        started = time.perf_counter()
        self.connection.request(method, path, body=data, headers=self.headers)
        response = self.connection.getresponse()
        payload = response.read()
        return time.perf_counter() - started, response.status, json.loads(payload or b"null")

    def events(self, item, moments, device="phone"):
        events = [{"id": str(uuid.uuid4()), "item": item, "device": device, "at": stamp(moment),
                   "position": 30.0 + index, "kind": "pause"} for index, moment in enumerate(moments)]
        seconds, status, body = self.send("POST", "/api/progress/events", {"events": events})
        if status != 200:
            raise SystemExit(f"progress upload answered {status}: {body}")
        return seconds


def median_ms(values):
    return statistics.median(values) * 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=str(ROOT / ".build/release/reverie"))
    parser.add_argument("--seconds", type=int, default=5)
    args = parser.parse_args()

    server = ReverieProcess(args.binary, prefix="reverie-progress-bench-", log_level="error")
    work = Path(tempfile.mkdtemp(prefix="reverie-progress-bench-"))
    try:
        token = server.owner_token("bench", "a long enough password", "progress")
        port = int(server.url.rsplit(":", 1)[1])
        client = Client(port, token)
        start = datetime.now(timezone.utc) - timedelta(days=30)

        # The first event on each of SAMPLES items that have none, and each item's place read once.
        firsts, first_reads = [], []
        for index in range(SAMPLES):
            item = f"library:{uuid.uuid4()}"
            firsts.append(client.events(item, [start + timedelta(seconds=index)]))
            first_reads.append(client.send("GET", f"/api/progress/{item}")[0])

        # One book with 5,000 events (a night's listening is about 240 of them, one per 15 s)...
        book = f"library:{uuid.uuid4()}"
        moment = start
        for _ in range(HISTORY // 500):
            client.events(book, [moment + timedelta(seconds=15 * n) for n in range(500)])
            moment += timedelta(seconds=15 * 500)
        # ...then the 5,001st and those after it, one at a time.
        laters, later_reads = [], []
        for index in range(SAMPLES):
            laters.append(client.events(book, [moment + timedelta(seconds=15 * index)]))
            later_reads.append(client.send("GET", f"/api/progress/{book}")[0])

        # A mixed load: each request of a client writes one event of its own book, reads that
        # book's place, or reads the library, in turn.
        script = work / "mixed.lua"
        script.write_text(f"""
local counter = 0
local thread_id = 0
local threads = {{}}
function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end
function init(args)
  math.randomseed(id * 7919 + os.time())
end
request = function()
  counter = counter + 1
  local book = string.format("library:%08x-0000-4000-8000-%012x", id, counter % 64)
  local step = counter % 3
  if step == 0 then
    local body = string.format('{{"events":[{{"id":"w%d-%d-%d","item":"%s","device":"phone","at":"2026-01-01T00:%02d:%02d.000Z","position":%d,"kind":"pause"}}]}}',
      id, counter, math.random(1, 1000000000), book, math.floor(counter / 60) % 60, counter % 60, counter % 36000 + 1)
    return wrk.format("POST", "/api/progress/events", {{["Authorization"] = "Bearer {token}", ["Content-Type"] = "application/json"}}, body)
  elseif step == 1 then
    return wrk.format("GET", "/api/progress/" .. book, {{["Authorization"] = "Bearer {token}"}})
  else
    return wrk.format("GET", "/api/library", {{["Authorization"] = "Bearer {token}"}})
  end
end
""")
        mixed = {clients: wrk(server.url, clients, args.seconds, script=str(script)) for clients in CONNECTIONS}

        first, later = median_ms(firsts), median_ms(laters)
        first_read, later_read = median_ms(first_reads), median_ms(later_reads)
        ratio_write, ratio_read = later / first, later_read / first_read
        ratio_load = mixed[64]["rate"] / mixed[16]["rate"]
        problems = sum(result["non2xx"] + result["timeouts"] for result in mixed.values())
        print(f"listening progress on SQLite (release server, loopback; median of {SAMPLES} one-event requests, one connection)")
        print(f"  {'one event, on an item with none':<52}{first:>8.2f} ms")
        print(f"  {f'one event, after {HISTORY:,} on the item':<52}{later:>8.2f} ms   {ratio_write:.2f}x the first (goal <= 1.50: {'met' if ratio_write <= 1.5 else 'NOT met'})")
        print(f"  {'its place read, on an item with one event':<52}{first_read:>8.2f} ms")
        print(f"  {f'its place read, after {HISTORY:,} on the item':<52}{later_read:>8.2f} ms   {ratio_read:.2f}x (goal <= 1.50: {'met' if ratio_read <= 1.5 else 'NOT met'})")
        for clients, result in mixed.items():
            print(f"  {f'mixed load (write, place, library), {clients} clients':<52}{result['rate']:>8.0f} req/s, p99 {result['p99']:.1f} ms")
        print(f"  64 clients give {ratio_load:.2f}x the throughput of 16 (goal >= 1.00: {'met' if ratio_load >= 1.0 else 'NOT met'})"
              + (f"  [{problems} non-2xx or timeouts]" if problems else ""))
        met = ratio_write <= 1.5 and ratio_read <= 1.5 and ratio_load >= 1.0 and problems == 0
        print("progress goals:", "all met" if met else "NOT all met")
        return 0
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
