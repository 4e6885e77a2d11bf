"""HTTPS at home (issue 32): a server started with REVERIE_TLS=on serves HTTPS beside plain HTTP
with a certificate from its own local authority (<data>/tls/). A browser that trusts that
authority, and only such a browser, opens Reverie over HTTPS as a secure context: it signs in, its
service worker takes the page, it can keep the screen on and install the app. The welcome page
(/welcome, over plain HTTP, where a phone first comes) says whether this device trusts Reverie.

Trust is given the way a person gives it on Linux: the authority's ca.crt is added to an NSS
database (Debian's certutil) in the HOME that Chromium is launched with. No certificate errors are
ignored; a second Chromium with an empty HOME shows that nothing else trusts the authority."""

import hashlib
import os
import re
import ssl
import subprocess
import urllib.request
from datetime import datetime
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from conftest import BINARY, CHROMIUM, PHONE, ReverieProcess, close, expect_error, open_page, screenshot, sign_in, wait_until, watch

NAME = "reverie.test"  # a name that is no loopback name; Chromium's resolver maps it to 127.0.0.1
AUTHORITY = "Reverie local authority"
ARGUMENTS = ["--no-sandbox", f"--host-resolver-rules=MAP {NAME} 127.0.0.1"]  # and no --ignore-certificate-errors


@pytest.fixture(scope="module")
def server():
    """A server serving HTTPS too, whose certificate also names reverie.test."""
    if not BINARY.exists():
        pytest.fail(f"{BINARY} is missing: run `swift build` first (make test does).")
    instance = ReverieProcess(BINARY, prefix="reverie-e2e-", https=True, environment={"REVERIE_TLS_NAMES": NAME})
    yield instance
    instance.stop()


def secure(server):
    """The server as a trusting device opens it: https://reverie.test:<HTTPS port>."""
    return SimpleNamespace(url=f"https://{NAME}:{server.https_port}")


def plain(server):
    """The plain address a phone on the LAN opens first: http://reverie.test:<port>."""
    return SimpleNamespace(url=server.url.replace("127.0.0.1", NAME))


def certutil(home, *arguments):
    return subprocess.run(["certutil", "-d", f"sql:{home}/.pki/nssdb", *arguments],
                          check=True, capture_output=True, text=True, env=dict(os.environ, HOME=str(home))).stdout


def launch(playwright, home):
    """Chromium living in `home`: its NSS database (home/.pki/nssdb) is the one it trusts from."""
    return playwright.chromium.launch(executable_path=CHROMIUM, env={**os.environ, "HOME": str(home)}, args=ARGUMENTS)


@pytest.fixture(scope="module")
def trusting_home(server, tmp_path_factory):
    """A HOME whose NSS database trusts the server's authority for websites, as after the welcome
    page's Linux steps."""
    home = tmp_path_factory.mktemp("trusting-home")
    (home / ".pki" / "nssdb").mkdir(parents=True)
    certutil(home, "-N", "--empty-password")
    certutil(home, "-A", "-t", "C,,", "-n", AUTHORITY, "-i", str(server.data / "tls" / "ca.crt"))
    assert re.search(rf"^{AUTHORITY}\s+C,,\s*$", certutil(home, "-L"), re.M), "the authority is not in the NSS database"
    return home


@pytest.fixture(scope="module")
def trusting_browser(playwright, trusting_home):
    browser = launch(playwright, trusting_home)
    yield browser
    browser.close()


@pytest.fixture(scope="module")
def untrusting_browser(playwright, tmp_path_factory):
    """Chromium with an empty HOME: a device not set up yet."""
    browser = launch(playwright, tmp_path_factory.mktemp("fresh-home"))
    yield browser
    browser.close()


def test_the_server_certificate_meets_apples_rules(server):
    """What iOS asks of a private authority's server certificate (https://support.apple.com/103769)."""
    text = subprocess.run(["openssl", "x509", "-noout", "-text", "-in", str(server.data / "tls" / "server.crt")],
                          check=True, capture_output=True, text=True).stdout
    names = re.search(r"X509v3 Subject Alternative Name:.*\n\s*(.+)", text).group(1)
    assert f"DNS:{NAME}" in names.split(", "), names
    assert "IP Address:127.0.0.1" in names.split(", "), names
    assert re.search(r"X509v3 Extended Key Usage:.*\n\s*TLS Web Server Authentication", text), text
    assert re.search(r"Signature Algorithm: ecdsa-with-SHA256", text), text
    assert re.search(r"ASN1 OID: prime256v1", text), text
    assert re.search(r"CA:FALSE", text), text

    def when(field):
        value = re.search(rf"{field}\s*: (.+ GMT)", text).group(1)
        return datetime.strptime(re.sub(r"\s+", " ", value), "%b %d %H:%M:%S %Y GMT")

    days = (when("Not After") - when("Not Before")).total_seconds() / 86_400
    assert 0 < days <= 825, f"valid for {days:.1f} days"
    # It is issued by the authority in the same directory.
    verified = subprocess.run(["openssl", "verify", "-CAfile", str(server.data / "tls" / "ca.crt"),
                               str(server.data / "tls" / "server.crt")], capture_output=True, text=True)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    # The authority may sign only the home's names (issue 50): the browser below trusts it for
    # reverie.test (under .test) and 127.0.0.1 through these constraints.
    authority = subprocess.run(["openssl", "x509", "-noout", "-text", "-in", str(server.data / "tls" / "ca.crt")],
                               check=True, capture_output=True, text=True).stdout
    assert "X509v3 Name Constraints: critical" in authority, authority
    permitted = {line.strip() for line in authority.splitlines()}
    assert {"DNS:test", "DNS:local", "DNS:localhost", "IP:127.0.0.0/255.0.0.0", "IP:192.168.0.0/255.255.0.0"} <= permitted, authority


def test_a_device_that_trusts_reverie_gets_the_whole_app(server, playwright, trusting_home, tmp_path):
    # A browser's own profile, not the off-the-record context a test's new_context() makes: Chromium
    # installs nothing from an incognito window (getInstallabilityErrors says "in-incognito").
    context = playwright.chromium.launch_persistent_context(
        tmp_path / "profile", executable_path=CHROMIUM, env={**os.environ, "HOME": str(trusting_home)},
        args=ARGUMENTS, viewport=PHONE, device_scale_factor=1)
    page = watch(context.pages[0] if context.pages else context.new_page())
    site = secure(server)
    sign_in(site, page, "Settings")
    assert page.url.startswith(f"https://{NAME}:{server.https_port}/"), page.url
    features = page.evaluate("({ secure: isSecureContext, worker: 'serviceWorker' in navigator,"
                             " wakeLock: 'wakeLock' in navigator, randomUUID: typeof crypto.randomUUID })")
    assert features == {"secure": True, "worker": True, "wakeLock": True, "randomUUID": "function"}, features
    expect(page.locator(".settings .card").first).to_be_visible()
    expect(page.locator("[data-secure-notice]")).to_have_count(0)

    # The service worker installs (Chromium registers none over a certificate it does not trust)
    # and, after a reload, answers the page.
    wait_until(page, "navigator.serviceWorker.ready.then(() => true)",
               message="the service worker never became ready over HTTPS")
    page.reload()
    wait_until(page, "navigator.serviceWorker.controller !== null",
               message="the service worker does not control the page after a reload")
    expect(page.get_by_role("navigation", name="Areas")).to_be_visible()  # still signed in

    # The screen can be kept on (Bedside's alarm): the wake lock is granted, not only present.
    assert page.evaluate("navigator.wakeLock.request('screen').then((lock) => { const type = lock.type;"
                         " return lock.release().then(() => type); })") == "screen"

    # Installable: Chromium's own check of the manifest, icons and worker finds nothing missing.
    session = page.context.new_cdp_session(page)
    errors = session.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert errors == [], errors
    manifest = session.send("Page.getAppManifest")
    assert manifest["url"] == f"{site.url}/manifest.webmanifest", manifest["url"]
    # Only warnings: the share target names no enctype (GET's default, x-www-form-urlencoded, is meant).
    assert [error for error in manifest["errors"] if error["critical"]] == [], manifest["errors"]
    close(page)  # closes the browser too


def test_the_welcome_page_says_whether_this_device_trusts_reverie(server, trusting_browser, untrusting_browser):
    site = plain(server)

    # Nothing but the NSS database in the trusting browser's HOME trusts the authority.
    refused = open_page(untrusting_browser)
    with pytest.raises(Exception, match="ERR_CERT_AUTHORITY_INVALID"):
        refused.goto(secure(server).url + "/")
    close(refused)

    # Over plain HTTP, in the browser that trusts the authority.
    page = open_page(trusting_browser, viewport=PHONE)
    page.goto(site.url + "/welcome")
    assert page.evaluate("isSecureContext") is False  # a plain LAN address, as a phone first sees it
    state = page.locator("#trust-state")
    expect(state).to_have_attribute("data-trusted", "true")
    expect(state).to_contain_text("This device trusts Reverie.")
    https = f"https://127.0.0.1:{server.https_port}/"  # the one address a server on 127.0.0.1 answers at
    expect(state.get_by_role("link", name="Open it securely")).to_have_attribute("href", https)
    expect(page.get_by_role("button", name="Check again")).to_be_hidden()
    expect(page.locator("#address-list").get_by_role("link", name=https)).to_be_visible()
    expect(page.locator("#fingerprint")).to_have_text(re.compile(r"^([0-9A-F]{2}:){31}[0-9A-F]{2}$"))
    screenshot(page, "welcome-trusted")
    close(page)

    # The same page in a browser that does not trust it yet.
    page = open_page(untrusting_browser, viewport=PHONE)
    expect_error(page, "net::ERR_CERT_AUTHORITY_INVALID", r"/welcome/trust$")  # the check itself is refused
    page.goto(site.url + "/welcome")
    state = page.locator("#trust-state")
    expect(state).to_have_attribute("data-trusted", "false")
    expect(state).to_contain_text("This device does not trust Reverie yet.")
    expect(page.get_by_role("button", name="Check again")).to_be_visible()
    expect(page.get_by_role("link", name="Profile for iPhone and iPad")).to_be_visible()
    expect(page.get_by_role("link", name="Certificate for Android and computers (.crt)")).to_be_visible()
    # What iOS shows for a profile no company signed, said before the person meets it.
    expect(page.locator("#authority")).to_contain_text("It says Not Verified in red")
    screenshot(page, "welcome-not-trusted")

    # What the page offers to download is the authority the server signs with.
    with urllib.request.urlopen(server.url + "/welcome/reverie-ca.crt") as response:
        assert response.headers["Content-Type"] == "application/x-x509-ca-cert"
        offered = response.read()
    assert offered == ssl.PEM_cert_to_DER_cert((server.data / "tls" / "ca.crt").read_text())
    close(page)


def ending_authority(data):
    """An authority of the server's kind that ends in 200 days, made with OpenSSL (as one made
    nine and a half years ago would be), limited to this machine's names."""
    tls = data / "tls"
    tls.mkdir(mode=0o700)
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "200",
                    "-subj", "/CN=Reverie local authority (reverie.test, 2017)/O=Reverie",
                    "-addext", "basicConstraints=critical,CA:TRUE,pathlen:0",
                    "-addext", "keyUsage=critical,digitalSignature,keyCertSign,cRLSign",
                    "-addext", f"nameConstraints=critical,permitted;DNS:localhost,permitted;DNS:{NAME},permitted;IP:127.0.0.0/255.0.0.0",
                    "-keyout", str(tls / "ca.key"), "-out", str(tls / "ca.crt")], check=True, capture_output=True)


def test_an_authority_near_its_end_offers_the_one_that_follows(playwright, tmp_path):
    """A year before the authority ends the server makes the one that follows it: /welcome offers
    it with a profile and a certificate of its own, its fingerprint, and the day to install it by
    (issue 50)."""
    server = ReverieProcess(BINARY, prefix="reverie-e2e-", https=True, environment={"REVERIE_TLS_NAMES": NAME}, prepare=ending_authority)
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGUMENTS)
    try:
        page = open_page(browser, viewport=PHONE)
        expect_error(page, "net::ERR_CERT_AUTHORITY_INVALID", r"/welcome/trust$")
        page.goto(plain(server).url + "/welcome")
        notice = page.locator("#authority-ending")
        expect(notice).to_be_visible()
        expect(notice).to_contain_text("The one that follows it is ready: install it on each device before")
        expect(notice.get_by_role("link", name="iPhone profile")).to_have_attribute("href", "/welcome/reverie-ca-next.mobileconfig")
        expect(notice.get_by_role("link", name="certificate (.crt)")).to_have_attribute("href", "/welcome/reverie-ca-next.crt")
        following = ssl.PEM_cert_to_DER_cert((server.data / "tls" / "ca-next.crt").read_text())
        fingerprint = ":".join(f"{byte:02X}" for byte in hashlib.sha256(following).digest())
        expect(notice.locator("code")).to_have_text(fingerprint)
        expect(page.locator("#fingerprint")).not_to_have_text(fingerprint)  # the one in use is still the old one
        notice.scroll_into_view_if_needed()
        screenshot(page, "welcome-next-authority")
        with urllib.request.urlopen(server.url + "/welcome/reverie-ca-next.crt") as response:
            assert response.read() == following
        with urllib.request.urlopen(server.url + "/welcome/reverie-ca-next.mobileconfig") as response:
            profile = response.read().decode()
        assert "Reverie at home (until 2036)" in profile or "Reverie at home (until 2037)" in profile, profile[:400]
        close(page)
    finally:
        browser.close()
        server.stop()

