"""The app installs like an app: manifest, icons, service worker, works offline, documented API."""

import re
import urllib.request
from pathlib import Path

import yaml  # comes with openapi-spec-validator's dependencies
from openapi_spec_validator import validate
from playwright.sync_api import expect

from conftest import expect_error, screenshot, wait_until

WEB = Path(__file__).resolve().parent.parent / "Web"


def fetch(url):
    with urllib.request.urlopen(url) as response:
        return response.status, response.headers, response.read()


def test_manifest_and_icons(server):
    status, headers, body = fetch(server.url + "/manifest.webmanifest")
    assert status == 200
    import json
    manifest = json.loads(body)
    assert manifest["name"] == "Reverie"
    assert manifest["display"] == "standalone"
    for icon in manifest["icons"]:
        status, headers, data = fetch(server.url + icon["src"])
        assert status == 200, icon["src"]
        if icon["type"] == "image/png":
            assert data[:8] == b"\x89PNG\r\n\x1a\n"
            width = int.from_bytes(data[16:20], "big")
            assert f"{width}x{width}" == icon["sizes"], icon["src"]


def test_openapi_document_is_valid(server):
    status, headers, body = fetch(server.url + "/openapi.yaml")
    assert status == 200
    assert "yaml" in headers["Content-Type"]
    validate(yaml.safe_load(body))


def test_shell_opens_offline(server, page):
    # The app's questions to the server while it is unreachable: refused by the browser, or (when
    # the service worker is already answering them) by the worker's failed fetch.
    expect_error(page, "offline", r"/api/")
    expect_error(page, "aborted", r"/api/")
    page.goto(server.url)
    expect(page.get_by_role("heading", name="Welcome to Reverie")).to_be_visible()
    wait_until(page, "navigator.serviceWorker.ready.then(() => true)")
    # The shell cache the worker names is filled.
    name = re.search(r'const CACHE = "([^"]+)"', (WEB / "sw.js").read_text()).group(1)
    wait_until(page, f"caches.has({name!r})", message=f"the service worker never filled the {name} cache")
    page.reload()  # now controlled by the service worker
    wait_until(page, "navigator.serviceWorker.controller !== null")
    page.context.set_offline(True)
    page.reload()
    # The shell comes from the cache and says plainly that the server cannot be reached.
    expect(page.get_by_role("heading", name="Reverie cannot start")).to_be_visible()
    expect(page.get_by_text("cannot be reached")).to_be_visible()
    screenshot(page, "offline")
    page.context.set_offline(False)
    page.get_by_role("button", name="Try again").click()
    expect(page.get_by_role("heading", name="Welcome to Reverie")).to_be_visible()


def test_service_worker_keeps_every_script():
    """Every module of the app is in the offline shell, or the app breaks offline when one is added.
    The welcome page's script is not the app's: that page is for a device not set up yet, and the
    server answers it (the worker leaves /welcome alone)."""
    listed = set(re.findall(r'"(/[^"]+)"', (WEB / "sw.js").read_text()))
    scripts = {"/" + str(path.relative_to(WEB)) for path in WEB.rglob("*.js") if path.name not in ("sw.js", "welcome.js")}
    assert scripts - listed == set(), "missing from SHELL in Web/sw.js"
