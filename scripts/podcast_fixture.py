"""Podcast and radio services on 127.0.0.1 for tests and the robustness run, so nothing reaches the
real iTunes, Podcast Index or radio-browser: an iTunes-shaped search, a Podcast Index search, a
feed with chapters and a transcript, its episode's MP3 (with Range), a cover picture, and
radio-browser's server list, stations and click counter, with a stream that plays and one that does
not. Reverie is pointed at it with `env()` (REVERIE_ITUNES_URL, REVERIE_PODCASTINDEX_URL,
REVERIE_RADIO_BROWSER_URL, and REVERIE_ALLOW_PRIVATE_FETCH=1).

    site = PodcastFixture()
    site.url + "/feeds/night.xml"   # the feed
    site.clicks                     # station ids radio-browser was told were played
"""

import json
import subprocess
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

STATION = "960e57c5-0601-11e8-ae97-52543be04c81"
BROKEN_STATION = "2b7f1a0e-0601-11e8-ae97-52543be04c81"
HLS_STATION = "4d3c2b1a-0601-11e8-ae97-52543be04c81"

TRANSCRIPT = """WEBVTT

00:00:00.000 --> 00:00:04.000
<v Ann>Good evening, and welcome to Night Owls.

00:00:04.000 --> 00:00:08.000
<v Ann>Tonight we listen for the tawny owl.

00:00:13.000 --> 00:00:18.000
<v Ben>There it is, calling from the oak.

00:00:18.000 --> 00:00:24.000
<v Ann>Sleep well, and goodnight.
"""


def _ffmpeg(*arguments):
    subprocess.run(["ffmpeg", "-v", "error", "-y", *arguments], check=True)


class PodcastFixture:
    def __init__(self, episode=None):
        """`episode`: an MP3 to serve as the episodes' audio instead of the 24-second one made here."""
        self.folder = Path(tempfile.mkdtemp(prefix="podcast-fixture-"))
        # The episode: 8 s of sound, 5 s of silence, 11 s of sound (24 s); the station: a minute.
        episode_file = self.folder / "episode.mp3"
        if episode:
            episode_file.symlink_to(Path(episode).resolve())
        else:
            self.make_episode(episode_file)
        _ffmpeg("-f", "lavfi", "-i", "sine=f=262:d=60", "-ar", "44100", "-ac", "1", "-b:a", "64k", str(self.folder / "stream.mp3"))
        _ffmpeg("-f", "lavfi", "-i", "color=c=0x334466:s=120x120:d=0.04", "-frames:v", "1", str(self.folder / "art.png"))
        # The HLS-only station: a master playlist naming an audio-only variant of 4 s MPEG-TS segments.
        (self.folder / "hls").mkdir()
        _ffmpeg("-f", "lavfi", "-i", "sine=f=392:d=24", "-ar", "44100", "-ac", "1", "-c:a", "aac", "-b:a", "64k", "-f", "hls", "-hls_time", "4",
                "-hls_playlist_type", "vod", "-hls_segment_filename", str(self.folder / "hls" / "owl%03d.ts"), str(self.folder / "hls" / "audio.m3u8"))
        self.start()

    @staticmethod
    def make_episode(episode):
        _ffmpeg("-f", "lavfi", "-i", "sine=f=220:d=8", "-f", "lavfi", "-i", "anullsrc=r=44100:cl=mono:d=5",
                "-f", "lavfi", "-i", "sine=f=330:d=11", "-filter_complex", "[0:a][1:a][2:a]concat=n=3:v=0:a=1,volume=-20dB",
                "-ar", "44100", "-ac", "1", "-b:a", "64k", str(episode))

    def start(self):
        self.clicks = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                url = urlparse(self.path)
                query = parse_qs(url.query)
                path = url.path
                if path == "/feeds/night.xml":
                    return site.text(self, "application/rss+xml", site.feed())
                if path == "/feeds/salt.xml":
                    # As some hosts publish: a newline before the declaration, a bare ampersand
                    # and an HTML entity.
                    size = (site.folder / "episode.mp3").stat().st_size
                    return site.text(self, "application/rss+xml", f"""
<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Salt & Night</title><link>{site.url}/</link>
<item><title>Fish&nbsp;& Moths</title><guid>salt-1</guid>
<enclosure url="{site.url}/audio/episode.mp3" type="audio/mpeg" length="{size}"/></item>
<item><guid>salt-2</guid><enclosure url="{site.url}/audio/episode.mp3?2" type="audio/mpeg" length="{size}"/></item></channel></rss>""")
                if path == "/audio/episode.mp3":
                    return site.file(self, site.folder / "episode.mp3", "audio/mpeg")
                if path == "/radio/stream.mp3":
                    return site.file(self, site.folder / "stream.mp3", "audio/mpeg")
                if path == "/radio/owl.m3u8":
                    return site.text(self, "application/vnd.apple.mpegurl", "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS=\"avc1.64001f,mp4a.40.2\"\n"
                                     "video.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=70000,CODECS=\"mp4a.40.2\"\nhls/audio.m3u8\n")
                if path.startswith("/radio/hls/") and "/" not in path[len("/radio/hls/"):] and (site.folder / "hls" / path[len("/radio/hls/"):]).is_file():
                    name = path[len("/radio/hls/"):]
                    return site.file(self, site.folder / "hls" / name, "application/vnd.apple.mpegurl" if name.endswith(".m3u8") else "video/mp2t")
                if path == "/art.png":
                    return site.file(self, site.folder / "art.png", "image/png")
                if path == "/chapters.json":
                    return site.json(self, {"version": "1.2.0", "chapters": [
                        {"startTime": 0, "title": "Welcome"}, {"startTime": 13, "title": "The tawny owl"}]})
                if path == "/transcript.vtt":
                    return site.text(self, "text/vtt", TRANSCRIPT)
                if path == "/itunes/search":
                    term = (query.get("term") or [""])[0].lower()
                    found = [] if "owl" not in term else [
                        {"collectionName": "Night Owls", "artistName": "Ann Host", "feedUrl": f"{site.url}/feeds/night.xml",
                         "artworkUrl600": f"{site.url}/art.png", "trackCount": 2}]
                    return site.json(self, {"resultCount": len(found), "results": found})
                if path == "/pi/api/1.0/search/byterm":
                    return site.json(self, {"status": "true", "feeds": []})
                if path == "/json/servers":
                    return site.json(self, [{"name": f"127.0.0.1:{site.port}", "ip": "127.0.0.1"}])
                if path == "/json/stations/search":
                    name = (query.get("name") or [""])[0].lower()
                    return site.json(self, [s for s in site.stations() if name and name in s["name"].lower()])
                if path.startswith("/json/stations/topclick/"):
                    return site.json(self, site.stations())
                if path.startswith("/json/stations/byuuid/"):
                    ident = path.rsplit("/", 1)[1]
                    return site.json(self, [s for s in site.stations() if s["stationuuid"] == ident])
                if path.startswith("/json/url/"):
                    site.clicks.append(path.rsplit("/", 1)[1])
                    return site.json(self, {"ok": "true"})
                self.send_error(404)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def env(self):
        return {"REVERIE_ITUNES_URL": self.url + "/itunes", "REVERIE_PODCASTINDEX_URL": self.url + "/pi",
                "REVERIE_RADIO_BROWSER_URL": self.url, "REVERIE_ALLOW_PRIVATE_FETCH": "1"}

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def feed(self):
        size = (self.folder / "episode.mp3").stat().st_size
        return f"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:podcast="https://podcastindex.org/namespace/1.0">
<channel><title>Night Owls</title><link>{self.url}/</link><itunes:author>Ann Host</itunes:author>
<itunes:image href="{self.url}/art.png"/><description>Birdsong and quiet talk for the small hours.</description>
<item><title>The Tawny Owl</title><guid>night-2</guid><pubDate>Sun, 22 Nov 2026 21:00:00 GMT</pubDate>
<itunes:duration>24</itunes:duration><enclosure url="{self.url}/audio/episode.mp3" type="audio/mpeg" length="{size}"/>
<podcast:chapters url="{self.url}/chapters.json" type="application/json+chapters"/>
<podcast:transcript url="{self.url}/transcript.vtt" type="text/vtt"/>
<description>Listening for owls in the oak wood.</description></item>
<item><title>Moths at the Window</title><guid>night-1</guid><pubDate>Sun, 15 Nov 2026 21:00:00 GMT</pubDate>
<itunes:duration>0:24</itunes:duration><enclosure url="{self.url}/audio/episode.mp3" type="audio/mpeg" length="{size}"/>
<description>Soft wings and lamplight.</description></item>
</channel></rss>"""

    def stations(self):
        base = {"favicon": "", "country": "The Wood", "codec": "MP3", "bitrate": 64, "votes": 3, "homepage": ""}
        return [
            # Its icon comes through the server; the backup's icon is on a host that cannot be reached.
            dict(base, stationuuid=STATION, name="Owl Radio", url=f"{self.url}/radio/stream.mp3",
                 url_resolved=f"{self.url}/radio/stream.mp3", tags="ambient,night", hls=0, favicon=f"{self.url}/art.png"),
            dict(base, stationuuid=BROKEN_STATION, name="Owl Radio Backup", url=f"{self.url}/radio/stream.mp3",
                 url_resolved=f"{self.url}/radio/gone.mp3", tags="night", hls=0, favicon="http://127.0.0.1:9/icon.png"),
            dict(base, stationuuid=HLS_STATION, name="Owl Radio HLS", url=f"{self.url}/radio/owl.m3u8",
                 url_resolved=f"{self.url}/radio/owl.m3u8", tags="", codec="AAC", hls=1),
        ]

    def file(self, handler, path, kind):
        data = path.read_bytes()
        start, end = 0, len(data) - 1
        header = handler.headers.get("Range", "")
        if header.startswith("bytes="):
            first, _, last = header[6:].partition("-")
            start = int(first) if first else max(0, len(data) - int(last))
            end = min(int(last), len(data) - 1) if first and last else len(data) - 1
            if start >= len(data):
                handler.send_response(416)
                handler.send_header("Content-Range", f"bytes */{len(data)}")
                handler.send_header("Content-Length", "0")
                handler.end_headers()
                return
            handler.send_response(206)
            handler.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
        else:
            handler.send_response(200)
        handler.send_header("Content-Type", kind)
        handler.send_header("Accept-Ranges", "bytes")
        handler.send_header("Content-Length", str(end - start + 1))
        handler.end_headers()
        handler.wfile.write(data[start:end + 1])

    def text(self, handler, kind, text):
        data = text.encode()
        handler.send_response(200)
        handler.send_header("Content-Type", kind)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def json(self, handler, body):
        self.text(handler, "application/json", json.dumps(body))
