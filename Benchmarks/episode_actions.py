#!/usr/bin/env python3
"""make bench, podcast apps section (issue 47): 10,000 episode actions, as a podcast app uploads a
long history at once, on a `reverie serve` with SQLite, beside the same listening written through
Reverie's own progress API in the same run:

  - the gpodder upload (POST /api/2/episodes/{user}.json, one batch of 10,000 play actions on
    episodes Reverie knows, each written to the listening log) beside the web app's way
    (POST /api/progress/events, 20 batches of 500, its largest);
  - reading them back with `since` (GET /api/2/episodes/{user}.json?since=), beside reading the
    same items' places through /api/progress/{item} for 100 of them (scaled to all).

    .venv/bin/python Benchmarks/episode_actions.py [--binary .build/release/reverie] [--actions 10000]
"""

import argparse
import base64
import http.client
import json
import sys
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from podcast_fixture import PodcastFixture  # noqa: E402
from reverie_process import ROOT, ReverieProcess, call  # noqa: E402


def request(port, method, path, headers, body=None):
    """(seconds, status, decoded body) over a fresh connection."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    data = body if isinstance(body, bytes) else (json.dumps(body).encode() if body is not None else None)
    started = time.perf_counter()
    connection.request(method, path, body=data, headers=headers)
    response = connection.getresponse()
    payload = response.read()
    seconds = time.perf_counter() - started
    connection.close()
    return seconds, response.status, json.loads(payload or b"null")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=str(ROOT / ".build/release/reverie"))
    parser.add_argument("--actions", type=int, default=10_000)
    args = parser.parse_args()

    site = PodcastFixture()
    server = ReverieProcess(args.binary, prefix="reverie-actions-bench-", log_level="error", podcasts=site)
    try:
        token = server.owner_token("bench", "a long enough password", "actions")
        bearer = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        port = int(server.url.rsplit(":", 1)[1])
        feed = f"{site.url}/feeds/night.xml"
        call(server.url + "/api/podcasts", "POST", {"feedURL": feed}, {"Authorization": f"Bearer {token}"})
        podcast = call(server.url + "/api/podcasts", headers={"Authorization": f"Bearer {token}"})[2]["podcasts"][0]
        episodes = call(server.url + f"/api/podcasts/{podcast['id']}", headers={"Authorization": f"Bearer {token}"})[2]["episodes"]
        app = call(server.url + "/api/apps", "POST", {"kind": "gpodder", "name": "bench"}, {"Authorization": f"Bearer {token}"})[2]
        basic = {"Authorization": "Basic " + base64.b64encode(f"bench:{app['secret']}".encode()).decode()}
        start = datetime.now(timezone.utc) - timedelta(days=60)

        # The app's history: one play action every 15 s across the feed's episodes.
        actions = [{"podcast": feed, "episode": episodes[n % len(episodes)]["enclosureURL"], "guid": None, "device": "phone", "action": "play",
                    "timestamp": (start + timedelta(seconds=15 * n)).strftime("%Y-%m-%dT%H:%M:%S"), "started": 0, "position": 1 + n % 20, "total": 24}
                   for n in range(args.actions)]
        for action in actions:
            del action["guid"]
        since = int(time.time()) - 1
        upload, status, body = request(port, "POST", "/api/2/episodes/bench.json", basic, json.dumps(actions).encode())
        if status != 200:
            raise SystemExit(f"the gpodder upload answered {status}: {body}")
        read, status, body = request(port, "GET", f"/api/2/episodes/bench.json?since={since}", basic)
        if status != 200 or len(body["actions"]) < args.actions:
            raise SystemExit(f"reading back answered {status} with {len(body.get('actions', []))} actions")

        # The same listening through Reverie's own progress API, 500 events at a time.
        items = [f"podcast:{uuid.uuid4()}" for _ in range(100)]
        own = 0.0
        for first in range(0, args.actions, 500):
            events = [{"id": str(uuid.uuid4()), "item": items[n % len(items)], "device": "phone",
                       "at": (start + timedelta(seconds=15 * n)).strftime("%Y-%m-%dT%H:%M:%S.000Z"), "position": 1 + n % 20, "kind": "pause"}
                      for n in range(first, min(args.actions, first + 500))]
            seconds, status, body = request(port, "POST", "/api/progress/events", bearer, {"events": events})
            if status != 200:
                raise SystemExit(f"the progress upload answered {status}: {body}")
            own += seconds
        places = sum(request(port, "GET", f"/api/progress/{item}", bearer)[0] for item in items)

        print(f"podcast apps' episode actions on SQLite ({args.actions:,} play actions; {Path(args.binary).parent.name} server, loopback)")
        print(f"  {'gpodder upload, one batch':<52}{upload:>8.2f} s   {args.actions / upload:>8,.0f} actions/s")
        print(f"  {'the same through /api/progress/events (500 a time)':<52}{own:>8.2f} s   {args.actions / own:>8,.0f} events/s"
              f"   gpodder {own / upload:.2f}x its speed")
        print(f"  {'gpodder read back with since':<52}{read:>8.2f} s   {args.actions / read:>8,.0f} actions/s")
        print(f"  {'100 places through /api/progress/{item}':<52}{places:>8.2f} s")
    finally:
        server.stop()
        site.stop()


if __name__ == "__main__":
    main()
