"""A LibriVox-shaped catalog on 127.0.0.1 for tests and the robustness run: the API's JSON
(`/api/feed/audiobooks?title=^…|author=…|id=…&format=json&extended=1`) and the sections' MP3s,
so nothing reaches the real LibriVox. Reverie is pointed at it with REVERIE_LIBRIVOX_URL and
allowed to fetch from a private address with REVERIE_ALLOW_PRIVATE_FETCH=1 (`env()`).

    site = LibriVoxFixture([{"id": 47, "title": "The Quiet Garden", "author": ("Ada", "Hollow"),
                             "sections": [("Part One", "Reader A", Path("1.mp3"))]}])
"""

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

# What a server gets when a test gives no books: a book with no recordings yet (adding it is a 422).
DEFAULT_BOOKS = [{"id": 47, "title": "The Quiet Garden", "author": ("Ada", "Hollow"), "sections": []}]


class LibriVoxFixture:
    def __init__(self, books=None):
        self.books = DEFAULT_BOOKS if books is None else books
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                url = urlparse(self.path)
                if url.path.rstrip("/") == "/api/feed/audiobooks":
                    return site.catalog(self, parse_qs(url.query))
                parts = url.path.strip("/").split("/")
                if len(parts) == 3 and parts[0] == "audio":
                    return site.audio(self, parts[1], parts[2])
                self.send_error(404)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def env(self):
        return {"REVERIE_LIBRIVOX_URL": self.url, "REVERIE_ALLOW_PRIVATE_FETCH": "1"}

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def describe(self, book):
        first, last = book["author"]
        return {
            "id": str(book["id"]), "title": book["title"], "description": f"<p>{book['title']}, read by volunteers.</p>",
            "language": "English", "totaltimesecs": 0, "url_librivox": f"https://librivox.org/{book['id']}/",
            "authors": [{"id": "1", "first_name": first, "last_name": last}],
            "sections": [{"id": str(1000 + n), "section_number": str(n + 1), "title": title, "playtime": "3",
                          "listen_url": f"{self.url}/audio/{book['id']}/{n + 1}.mp3",
                          "readers": [{"reader_id": str(n), "display_name": reader}]}
                         for n, (title, reader, _) in enumerate(book["sections"])],
        }

    def catalog(self, handler, query):
        title = (query.get("title") or [""])[0].lstrip("^").lower()
        author = (query.get("author") or [""])[0].lower()
        ident = (query.get("id") or [""])[0]
        found = [book for book in self.books
                 if (ident and str(book["id"]) == ident)
                 or (title and book["title"].lower().startswith(title))
                 or (title and book["title"].lower().startswith("the " + title))
                 or (author and book["author"][1].lower() == author)]
        if not found:
            return self.send(handler, 404, {"error": "Audiobooks could not be found"})
        self.send(handler, 200, {"books": [self.describe(book) for book in found]})

    def audio(self, handler, book_id, name):
        book = next((book for book in self.books if str(book["id"]) == book_id), None)
        try:
            index = int(name.removesuffix(".mp3")) - 1
            path = book["sections"][index][2]
        except (TypeError, ValueError, IndexError):
            return handler.send_error(404)
        data = path.read_bytes()
        # A Range is answered as archive.org answers it (206, a range past the end cut to it), so
        # the server can read a section's head and start it from a byte, as it does on LibriVox.
        asked = re.fullmatch(r"bytes=(\d+)-(\d*)", handler.headers.get("Range", ""))
        if asked and int(asked.group(1)) >= len(data):
            handler.send_response(416)
            handler.send_header("Content-Range", f"bytes */{len(data)}")
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        try:
            if asked:
                first = int(asked.group(1))
                last = min(len(data) - 1, int(asked.group(2))) if asked.group(2) else len(data) - 1
                handler.send_response(206)
                handler.send_header("Content-Range", f"bytes {first}-{last}/{len(data)}")
                data = data[first:last + 1]
            else:
                handler.send_response(200)
            handler.send_header("Content-Type", "audio/mpeg")
            handler.send_header("Accept-Ranges", "bytes")
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server stopped reading (a piece of a joined stream made)

    @staticmethod
    def send(handler, status, body):
        data = json.dumps(body).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
