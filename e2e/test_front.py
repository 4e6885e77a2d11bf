"""The front (issue 32): Reverie behind nginx as scripts/front.sh starts it (`make run-front`).

The browser signs in, plays a Wind Down item with a sleep timer and uploads a Listen file, all
through nginx; media bytes come from nginx itself (Reverie answers the front with a redirect to a
signed address that nginx checks and serves with Range; an altered address is refused 403, an
expired one 410; with FRONT_MEDIA=accel, an empty X-Accel-Redirect answer per read), and nginx's
internal location is not reachable from outside. The web app's files come from nginx with Reverie's headers. Probes a
browser never sends are answered by the front: a client that stops halfway through its request
line is closed after client_header_timeout, an idle keep-alive connection after keepalive_timeout,
and a 1 MiB header gets a 4xx, not a reset. HTTPS is served with Reverie's local authority and
offers HTTP/2.

front.sh runs with 2 s and 3 s for those two timeouts (FRONT_HEADER_TIMEOUT, FRONT_IDLE_TIMEOUT)
so the probes wait on the sockets, not on fixed delays."""

import base64
import hashlib
import http.client
import json
import re
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from playwright.sync_api import expect

from conftest import BINARY, OWNER, PASSWORD, ROOT, close, open_page, screenshot, sign_in, wait_until

sys.path.insert(0, str(ROOT / "scripts"))
from front_process import FrontProcess  # noqa: E402

HEADER_TIMEOUT = 2  # seconds: FRONT_HEADER_TIMEOUT
IDLE_TIMEOUT = 3  # seconds: FRONT_IDLE_TIMEOUT
# How long after a probe begins the front may close its connection and still count as closing it
# on its timeout: most of a minute for a busy machine to stall nginx's timer or this test, yet under
# front.sh's default idle timeout (60 s) and nginx's own (60 s for a header, 75 s idle), so a
# default cannot pass for the configured one. "Not before the timeout" is the exact check.
CLOSED_BY = 50  # seconds
SECURITY_HEADERS = ("X-Content-Type-Options", "Referrer-Policy", "X-Frame-Options", "Content-Security-Policy", "Cache-Control")
NGINX_ETAG = re.compile(r'^"[0-9a-f]+-[0-9a-f]+"$')  # nginx's "<mtime>-<size>" in hex; Reverie's has three parts


def start_front(binary):
    """scripts/front.sh with one Reverie server, on free ports, with a data directory of its own
    and the two timeouts the probes wait on."""
    return FrontProcess(binary, environment={"FRONT_HEADER_TIMEOUT": f"{HEADER_TIMEOUT}s", "FRONT_IDLE_TIMEOUT": f"{IDLE_TIMEOUT}s"})


@pytest.fixture(scope="module")
def front():
    if not BINARY.exists():
        pytest.fail(f"{BINARY} is missing: run `swift build` first (make test does).")
    instance = start_front(BINARY)
    yield instance
    instance.stop()


def get(url, headers=None):
    """(status, headers, body) for a GET, HTTP errors included."""
    return send(url, "GET", None, headers or {})


class NotFollowing(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer here: the tests look at where it points."""

    def redirect_request(self, *_):
        return None


OPENER = urllib.request.build_opener(NotFollowing)


def send(url, method, body, headers):
    """(status, headers, body) for a request, HTTP errors and redirects included."""
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with OPENER.open(request, timeout=300) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def owner_cookie(front):
    """The owner's session cookie, through the front: the owner is set up first if no one is yet."""
    account = json.dumps({"username": OWNER, "password": PASSWORD}).encode()
    for route in ("/api/setup", "/api/auth/login"):
        status, headers, _ = send(front.url + route, "POST", account, {"Content-Type": "application/json"})
        if status in (200, 201):
            return headers["Set-Cookie"].split(";")[0]
    raise AssertionError(f"could not sign in through the front ({status})")


def song(folder, title="Lullaby"):
    """A 4-second MP3 tagged `title`."""
    path = folder / f"{title.lower()}.mp3"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=330:duration=4", "-metadata", f"title={title}",
                    "-metadata", "artist=Ann Author", "-c:a", "libmp3lame", str(path)], check=True)
    return path


def cookie_of(page):
    return "; ".join(f"{c['name']}={c['value']}" for c in page.context.cookies())


def wind_down_upload(front, page, item, path):
    """The owner gives `item` the audio file at `path` through the front (the upload location,
    whose body streams on to Reverie); returns the answer's status once the file is levelled."""
    request = urllib.request.Request(f"{front.url}/api/winddown/{item}/audio", data=path.read_bytes(), method="PUT",
                                     headers={"Cookie": cookie_of(page), "Content-Type": "audio/mpeg", "X-File-Name": path.name})
    with urllib.request.urlopen(request, timeout=300) as response:
        status = response.status
    wait_until(page, f"fetch('/api/winddown/{item}').then(r => r.json()).then(b => b.audio.state === 'ready')",
               timeout=300, message=f"{item}'s upload was never levelled")
    return status


def test_sign_in_play_wind_down_with_a_timer_and_upload_to_listen_through_the_front(front, browser):
    """The browser suite's sign-in, Wind Down play with a sleep timer and a Listen upload, all
    through nginx on its plain HTTP port (loopback: a secure context already)."""
    page = open_page(browser)
    audio_answers = []
    page.on("response", lambda response: ("/audio" in response.url or "/_media/" in response.url) and audio_answers.append(
        (response.url, response.status, response.all_headers())))
    sign_in(front, page)

    # A 16-minute story (longer than a 15-minute timer, so the timer needs the faded rendition),
    # uploaded through the front: 4 MB, past the 1 MiB every other route takes.
    story = front.data / "night-walk.mp3"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=196:duration=960", "-ac", "1", "-ar", "22050",
                    "-b:a", "32k", str(story)], check=True)
    assert story.stat().st_size > 1 << 20
    assert wind_down_upload(front, page, "story_night_train", story) == 202

    page.get_by_role("navigation", name="Areas").get_by_role("link", name="Wind Down", exact=True).click()
    page.locator('[data-item="story_night_train"].wd-card').first.click()
    player = page.get_by_role("dialog", name="The Slow Night Train, player")
    expect(player.get_by_role("button", name="Pause", exact=True)).to_be_visible()
    player.locator(".player-timer").click()
    page.get_by_role("dialog", name="Sleep timer").get_by_role("button", name="15 minutes").click()
    expect(player.locator(".player-timer-label")).to_have_text(re.compile(r"^1[45]:\d\d remaining$"))
    # The rendition that ends at the timer plays: its time moves on.
    wait_until(page, "(document.querySelector('.player-audio').getAttribute('src') || '').includes('until=')",
               message="the timer's rendition was never asked for")
    page.evaluate("""() => { const audio = document.querySelector('.player-audio'); window.renditionTimes = [];
        audio.addEventListener('timeupdate', () => { if (audio.currentSrc.includes('until=')) window.renditionTimes.push(audio.currentTime); }); }""")
    wait_until(page, "window.renditionTimes.length > 1 && Math.max(...window.renditionTimes) - Math.min(...window.renditionTimes) > 1.2",
               message="the timer's rendition did not play")
    screenshot(page, "front-wind-down-timer")
    # Both files the player fetched came from nginx, which answers a media element's range itself:
    # Reverie sent the player to each file's signed address, and the player read that.
    for fragment in ("/api/winddown/story_night_train/audio", "until="):
        answers = [a for a in audio_answers if fragment in a[0]]
        assert answers, f"no answer for {fragment}: {audio_answers}"
        url, status, headers = answers[-1]
        assert status == 307 and headers.get("location", "").startswith("/_media/mp4/"), (url, status, headers)
        sent = [a for a in audio_answers if a[0].endswith(headers["location"])]
        assert sent, f"the player never read {headers['location']}: {audio_answers}"
        url, status, headers = sent[-1]
        assert status in (200, 206) and headers.get("server") == "nginx", (url, status, headers)
        assert NGINX_ETAG.match(headers.get("etag", "")) and headers.get("content-type") == "audio/mp4", (url, headers)
    player.get_by_role("button", name="Pause", exact=True).click()
    player.get_by_role("button", name="Close the player").click()

    # A Listen upload, from the screen's file picker.
    page.get_by_role("navigation", name="Areas").get_by_role("link", name="Listen", exact=True).click()
    expect(page.get_by_role("heading", name="Listen", level=1)).to_be_visible()
    page.locator("[data-upload]").set_input_files(str(song(front.data)))
    # The upload goes through nginx and is levelled by a server, which can take minutes on a busy machine.
    expect(page.get_by_role("tab", name="Music")).to_have_attribute("aria-selected", "true", timeout=180_000)
    expect(page.locator(".listen-item", has_text="Lullaby")).to_be_visible()
    screenshot(page, "front-listen-upload")
    close(page)


def signed(front, path, expires):
    """`path` (as nginx decodes it) signed with the front's media secret to expire at `expires`,
    as FrontSettings.signedAddress signs: nginx's secure_link_md5 over expiry, path and secret."""
    key = (front.data / "front" / "media.key").read_text().strip()
    digest = hashlib.md5(f"{expires}{urllib.parse.unquote(path)} {key}".encode()).digest()
    return f"{path}?e={expires}&s={base64.urlsafe_b64encode(digest).decode().rstrip('=')}"


def uploaded_song(front, cookie, title):
    status, _, body = send(front.url + "/api/library?kind=music", "POST", song(front.data, title).read_bytes(),
                           {"Cookie": cookie, "Content-Type": "audio/mpeg", "X-File-Name": f"{title.lower()}.mp3"})
    assert status in (200, 201), body
    return f"/api/library/{json.loads(body)['item']['id']}/audio"


def test_media_goes_to_a_signed_address_nginx_serves_and_an_altered_or_expired_one_is_refused(front):
    cookie = owner_cookie(front)
    path = uploaded_song(front, cookie, "Evensong")
    # Straight to Reverie from the front's address: a redirect to the file's signed address, never kept.
    status, headers, body = get(front.upstreams[0] + path, {"Cookie": cookie, "Range": "bytes=0-99"})
    assert status == 307 and body == b"" and headers["Cache-Control"] == "no-store", (status, dict(headers), body[:100])
    location = headers["Location"]
    match = re.fullmatch(r"(/_media/mpeg/(media/[^?]+))\?e=(\d+)&s=([A-Za-z0-9_-]{22})", location)
    assert match, location
    on_disk = front.data / urllib.parse.unquote(match.group(2))
    assert on_disk.is_file(), on_disk
    # Good for six to seven hours: a night's listening.
    assert 6 * 3600 <= int(match.group(3)) - time.time() <= 7 * 3600, location
    # Through the front: the same redirect, and nginx sends the range of that file from its address alone.
    status, headers, _ = get(front.url + path, {"Cookie": cookie, "Range": "bytes=0-99"})
    assert status == 307 and headers["Location"] == location, (status, dict(headers))
    status, headers, body = get(front.url + location, {"Range": "bytes=0-99"})
    assert status == 206 and headers["Server"] == "nginx", (status, dict(headers))
    assert headers["Content-Range"] == f"bytes 0-99/{on_disk.stat().st_size}" and body == on_disk.read_bytes()[:100]
    assert headers["Content-Type"] == "audio/mpeg" and NGINX_ETAG.match(headers["ETag"]), dict(headers)
    assert {name: headers[name] for name in SECURITY_HEADERS} == {
        "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin", "X-Frame-Options": "DENY",
        "Content-Security-Policy": get(front.upstreams[0] + "/")[1]["Content-Security-Policy"],
        "Cache-Control": "private, max-age=86400"}, dict(headers)
    # Signed out, Reverie refuses before any address is made.
    assert get(front.url + path, {"Range": "bytes=0-99"})[0] == 401

    # Altered: another signature, another file, another expiry, another type, or none at all: 403.
    file_path, expires, signature = match.group(1), match.group(3), match.group(4)
    other = "A" if signature[0] != "A" else "B"
    assert get(front.url + f"{file_path}?e={expires}&s={other}{signature[1:]}")[0] == 403
    assert get(front.url + f"{file_path}?e={int(expires) + 3600}&s={signature}")[0] == 403
    assert get(front.url + location.replace("/_media/mpeg/", "/_media/mp4/"))[0] == 403
    other_file = uploaded_song(front, cookie, "Matins")
    other_location = get(front.url + other_file, {"Cookie": cookie})[1]["Location"]
    assert get(front.url + other_location.split("?")[0] + "?" + location.split("?")[1])[0] == 403
    assert get(front.url + file_path)[0] == 403
    # Expired (signed right, an hour ago): 410, and the player asks Reverie again.
    assert get(front.url + signed(front, file_path, int(time.time()) - 3600))[0] == 410
    assert get(front.url + signed(front, file_path, int(time.time()) + 600), {"Range": "bytes=0-9"})[0] == 206
    # No way out of the data directory, and no type the front has no place for.
    assert get(front.url + signed(front, "/_media/mpeg/../front/media.key", int(time.time()) + 600))[0] in (400, 403, 404)
    assert get(front.url + signed(front, "/_media/text/" + match.group(2), int(time.time()) + 600))[0] == 404
    # The internal location of the hand-over answers no one from outside.
    assert get(front.url + "/_reverie_files/" + match.group(2))[0] == 404


def test_with_front_media_accel_every_read_is_handed_over_by_reverie():
    """FRONT_MEDIA=accel: no signed addresses; Reverie answers each read with X-Accel-Redirect."""
    front = FrontProcess(BINARY, prefix="reverie-front-accel-", environment={"FRONT_MEDIA": "accel"})
    try:
        cookie = owner_cookie(front)
        path = uploaded_song(front, cookie, "Evensong")
        # Straight to Reverie from the front's address: an empty answer that names the file.
        status, headers, body = get(front.upstreams[0] + path, {"Cookie": cookie, "Range": "bytes=0-99"})
        assert status == 200 and body == b"", (status, dict(headers), body[:100])
        handed = headers["X-Accel-Redirect"]
        assert handed.startswith("/_reverie_files/"), handed
        assert headers["Content-Type"].startswith("audio/") and headers["Cache-Control"], dict(headers)
        on_disk = front.data / urllib.parse.unquote(handed.removeprefix("/_reverie_files/"))
        assert on_disk.is_file(), on_disk
        # Through the front: nginx sends the range of that file.
        status, headers, body = get(front.url + path, {"Cookie": cookie, "Range": "bytes=0-99"})
        assert status == 206 and headers["Server"] == "nginx", (status, dict(headers))
        assert headers["Content-Range"] == f"bytes 0-99/{on_disk.stat().st_size}" and body == on_disk.read_bytes()[:100]
        assert "X-Accel-Redirect" not in headers and NGINX_ETAG.match(headers["ETag"]), dict(headers)
        assert headers["X-Content-Type-Options"] == "nosniff" and headers["Content-Type"].startswith("audio/")
        # The internal location answers no one from outside.
        assert get(front.url + handed)[0] == 404
    finally:
        front.stop()


def test_web_files_come_from_nginx_with_reveries_headers(front):
    upstream = front.upstreams[0]
    for path in ("/", "/write", "/app.js", "/styles.css"):
        status, headers, body = get(front.url + path, {"Accept-Encoding": "gzip"})
        _, theirs, _ = get(upstream + path)
        assert status == 200 and headers["Server"] == "nginx", (path, status)
        assert {name: headers[name] for name in SECURITY_HEADERS} == {name: theirs[name] for name in SECURITY_HEADERS}, path
        assert headers["ETag"] and headers["Last-Modified"] and headers["Content-Encoding"] == "gzip", (path, dict(headers))
    # An app location is the shell; a missing asset stays missing; the server's routes are the server's.
    assert get(front.url + "/settings/tokens")[2] == (ROOT / "Web" / "index.html").read_bytes()
    assert get(front.url + "/no-such-file.js")[0] == 404
    assert get(front.url + "/api/health")[0] == 200
    status, headers, _ = get(front.url + "/manifest.webmanifest")
    assert status == 200 and headers["Content-Type"].startswith("application/manifest+json")
    # The welcome page keeps its own policy (it asks the HTTPS address whether it is trusted).
    assert "connect-src 'self' https:" in get(front.url + "/welcome")[1]["Content-Security-Policy"]


def raw(front):
    """A TCP connection to the front's plain HTTP port, for requests no browser sends."""
    return socket.create_connection(("127.0.0.1", front.port), timeout=30)


def read_until_closed(connection, limit):
    """What the front sends until it closes the connection (or `limit` seconds pass: a failure)."""
    connection.settimeout(limit)
    received = b""
    while chunk := connection.recv(65536):
        received += chunk
    return received


def test_a_slow_header_client_is_closed_after_the_header_timeout(front):
    with raw(front) as connection:
        started = time.monotonic()
        connection.sendall(b"GET /api/hea")
        received = read_until_closed(connection, CLOSED_BY + 20)
        waited = time.monotonic() - started
    assert received == b"" or received.startswith(b"HTTP/1.1 408"), received[:200]
    assert HEADER_TIMEOUT - 0.5 <= waited < CLOSED_BY, waited


def test_an_idle_keep_alive_connection_is_closed_after_the_idle_timeout(front):
    with raw(front) as connection:
        connection.sendall(b"GET / HTTP/1.1\r\nHost: reverie\r\n\r\n")
        answer = http.client.HTTPResponse(connection)
        answer.begin()
        assert answer.status == 200 and answer.read().startswith(b"<!doctype html") and not answer.will_close
        started = time.monotonic()
        # The answer is read whole; from here the connection is idle until the front closes it.
        assert read_until_closed(connection, CLOSED_BY + 20) == b""
        waited = time.monotonic() - started
    assert IDLE_TIMEOUT - 0.5 <= waited < CLOSED_BY, waited


def test_a_one_mebibyte_header_gets_a_4xx_not_a_reset(front):
    with raw(front) as connection:
        connection.sendall(b"GET / HTTP/1.1\r\nHost: reverie\r\nX-Large: " + b"a" * (1 << 20) + b"\r\n\r\n")
        connection.settimeout(30)
        answer = connection.recv(4096)
    status = int(answer.split(b" ", 2)[1])
    assert status in (400, 431, 494), answer[:200]


def test_https_with_the_local_authority_and_http2(front):
    authority = front.data / "tls" / "ca.crt"
    context = ssl.create_default_context(cafile=str(authority))  # the only root it trusts
    with urllib.request.urlopen(f"https://localhost:{front.tls_port}/", context=context, timeout=30) as response:
        assert response.status == 200 and response.headers["Server"] == "nginx"
        assert b"<!doctype html" in response.read().lower()
    context.set_alpn_protocols(["h2", "http/1.1"])
    with socket.create_connection(("localhost", front.tls_port), timeout=30) as connection:
        with context.wrap_socket(connection, server_hostname="localhost") as tls:
            assert tls.selected_alpn_protocol() == "h2"
            assert tls.version() in ("TLSv1.2", "TLSv1.3")
    # Nothing else trusts it.
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"https://localhost:{front.tls_port}/", context=ssl.create_default_context(), timeout=30)
