"""Articles in the browser, as a new reader would: save a long article from another site with the
bookmarklet (its success sheet, then Read), read it with its bold, links and headings, open a link
in a new tab, press Listen and watch the spoken word light up, tap a word further down to jump
there, come back to the same place; the error sheet with Retry and Cancel; a shared note through
the Web Share Target's address; and an EPUB imported with the chapters of its contents."""

import io
import json
import threading
import time
import zipfile
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import expect

from conftest import OWNER, PASSWORD, close, expect_error, open_page, screenshot, settled, sign_in, wait_until

PARAGRAPHS = [
    "The lighthouse on Gull Rock was the last in the county to be kept by hand, and Nora Penhale kept it for thirty-one years.",
    "Every evening she climbed the ninety-one steps with a can of oil and a cloth, trimmed the wick, and polished the great lens until it shone.",
    "Ships passing in the night saw her light sweep across the water every twelve seconds, steady as a heartbeat, from dusk until dawn.",
    "In winter the storms came in from the west, and the spray reached the lantern room itself, a hundred feet above the sea.",
    "She wrote everything down in the log: the weather, the ships, the birds that struck the glass, and the long quiet hours between.",
    "When the light was finally automated, she rowed ashore with her logbooks, her cat, and a jar of sea glass gathered from the rocks.",
    "People in the village still say that on clear nights you can see a second light out on the water, turning slowly, where no light should be.",
    "Nora only laughed when they told her, and said the sea remembers everyone who was ever kind to it.",
]


def story_html():
    body = [
        "<h2>The keeper</h2>",
        f"<p>{PARAGRAPHS[0].replace('thirty-one years', '<strong>thirty-one years</strong>')}</p>",
        f"<p>{PARAGRAPHS[1].replace('great lens', '<em>great lens</em>')}</p>",
        "<p>" + PARAGRAPHS[2].replace("every twelve seconds", '<a href="/light-characteristics.html">every twelve seconds</a>') + "</p>",
        "<h2>The storms</h2>",
    ] + [f"<p>{text}</p>" for text in PARAGRAPHS[3:]]
    return f"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>The Last Keeper of Gull Rock – Coast Weekly</title>
<meta property="og:site_name" content="Coast Weekly"><meta name="author" content="Jo Trevithick"></head>
<body><nav class="menu"><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a></nav>
<main><article><h1>The Last Keeper of Gull Rock</h1>{''.join(body)}</article></main>
<aside class="sidebar"><h3>Most read</h3><ul><li><a href="/a">Harbour fees rise</a></li><li><a href="/b">Lifeboat day</a></li></ul></aside>
<footer>© Coast Weekly</footer></body></html>"""


def epub_bytes():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as book:
        book.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        book.writestr("META-INF/container.xml", '<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:xmlns:container" version="1.0"><rootfiles><rootfile full-path="OPS/book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>', zipfile.ZIP_DEFLATED)
        book.writestr("OPS/book.opf", '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Harbour Songs</dc:title><dc:creator>A. Quay</dc:creator></metadata>'
                      '<manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/><item id="one" href="one.xhtml" media-type="application/xhtml+xml"/><item id="two" href="two.xhtml" media-type="application/xhtml+xml"/><item id="three" href="three.xhtml" media-type="application/xhtml+xml"/></manifest>'
                      '<spine><itemref idref="one"/><itemref idref="two"/><itemref idref="three"/></spine></package>', zipfile.ZIP_DEFLATED)
        book.writestr("OPS/nav.xhtml", '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><body><nav epub:type="toc"><ol>'
                      '<li><a href="one.xhtml">Low Water</a></li><li><a href="two.xhtml">High Water</a></li><li><a href="three.xhtml">Slack Tide</a></li></ol></nav></body></html>', zipfile.ZIP_DEFLATED)
        for name, title, text in [("one", "Low Water", "The boats lie on their sides in the mud."), ("two", "High Water", "Now they float and tug at their ropes."),
                                  ("three", "Slack Tide", "For a moment nothing moves at all.")]:
            book.writestr(f"OPS/{name}.xhtml", f"<html><body><h1>{title}</h1><p>{text}</p></body></html>", zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


# A page that builds its article with a script: fetched by the server, it holds no article.
SCRIPTED = """<!doctype html><html><head><title>Night Trains</title>
<script src="/app.js" defer></script></head>
<body><nav><a href="/">Home</a></nav><main id="app"></main>
<script>
document.getElementById("app").innerHTML = "<article><h1>Night Trains</h1>" + [
  "The sleeper leaves the city at ten, and the lights of the suburbs thin out behind it within the hour.",
  "Somewhere past midnight the train slows for a border, and a guard walks the corridor with a torch, quietly.",
  "By dawn the window is full of mountains, and the coffee in the dining car tastes better than it has any right to.",
].map(function (line) { return "<p>" + line + "</p>"; }).join("") + "</article>";
</script></body></html>"""


class Site:
    """Another website, on 127.0.0.1: the article, the page its link goes to."""

    def __init__(self):
        pages = {"/story.html": story_html(), "/light-characteristics.html": "<html><head><title>Light characteristics</title></head><body><p>Fl 12s.</p></body></html>",
                 "/scripted.html": SCRIPTED}

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                if self.path == "/favicon.ico":
                    self.send_response(204)
                    self.end_headers()
                    return
                body = pages.get(self.path.split("?")[0])
                if body is None:
                    self.send_response(404)
                    self.end_headers()
                    return
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def site():
    instance = Site()
    yield instance
    instance.stop()


def open_articles(page):
    page.get_by_role("link", name="Articles").click()
    expect(page.get_by_role("heading", name="Articles", level=1)).to_be_visible()


def spoken_offset(page):
    return page.evaluate("(() => { const w = document.querySelector('.reader-text .w.spoken'); return w ? Number(w.dataset.at) : -1; })()")


def run_clock_until(page, check, step=250, timeout=30.0, message=None):
    """With the device's clock paused, moves it on `step` ms at a time until `check()` is truthy:
    the page's timers (a job's polling) run, but never more than `step` past the moment the page
    got there, so a timer the page then sets has not yet come due."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(message or f"never true within {timeout} s: {check}")
        page.clock.run_for(step)


def test_save_with_the_bookmarklet_read_and_listen(server, site, browser):
    page = open_page(browser)
    sign_in(server, page, "Listen")
    open_articles(page)
    expect(page.locator(".listen-empty")).to_contain_text("No articles yet")
    screenshot(page, "articles-empty")
    bookmarklet = page.locator("[data-bookmarklet]").get_attribute("href")
    assert bookmarklet.startswith("javascript:") and server.url in bookmarklet

    # On another site, the bookmarklet opens the save sheet in a small window of its own. The
    # device's clock is paused first, so the sheet's four seconds pass only when the test says.
    page.goto(site.url + "/story.html")
    start = datetime.now()
    page.clock.install(time=start)
    page.clock.pause_at(start + timedelta(seconds=5))
    with page.expect_popup() as opened:
        page.evaluate(bookmarklet[len("javascript:"):])
    sheet_page = opened.value
    # The little window's errors count as the page's.
    sheet_page.on("pageerror", lambda error: page.problems.append(str(error)))
    sheet_page.on("console", lambda message: message.type == "error" and page.problems.append(f"{message.text} (save window)"))
    sheet_page.set_viewport_size({"width": 390, "height": 844})
    sheet = sheet_page.locator(".save-sheet")
    run_clock_until(sheet_page, lambda: sheet.locator(".save-done").is_visible(), message="the article was never saved")
    expect(sheet.locator(".save-done")).to_contain_text("Saved")
    expect(sheet.locator(".save-title")).to_have_text("The Last Keeper of Gull Rock")
    expect(sheet.get_by_role("link", name="Read")).to_be_visible()
    expect(sheet.get_by_role("link", name="Listen")).to_be_visible()
    assert sheet.get_attribute("data-auto-dismiss") == "4000"
    settled(sheet_page)   # the drawing and the spring have played
    screenshot(sheet_page, "article-saved-sheet")
    # Touching the sheet keeps it open past its four seconds.
    sheet.locator(".save-title").click()
    assert sheet.get_attribute("data-auto-dismiss") is None
    sheet_page.clock.run_for(4_300)  # past the four seconds (and the 250 ms of leaving), on the page's clock
    # A dismissal would have marked the sheet as leaving and closed the window by now.
    assert not sheet_page.is_closed(), "the touched sheet closed its window after four seconds"
    assert "leaving" not in sheet.get_attribute("class"), "the touched sheet went away after four seconds"
    expect(sheet.locator(".save-title")).to_be_visible()
    sheet_page.clock.resume()  # the clock flows again for reading and listening
    sheet.get_by_role("link", name="Read").click()

    # Read: the formatting of the page, none of its menus.
    reader = sheet_page
    expect(reader.get_by_role("heading", name="The Last Keeper of Gull Rock", level=1)).to_be_visible()
    text = reader.locator(".reader-text")
    expect(text.locator("strong")).to_have_text("thirty-one years")
    expect(text.locator("em")).to_have_text("great lens")
    expect(text.get_by_role("heading", name="The storms")).to_be_visible()
    expect(text).not_to_contain_text("Most read")
    expect(reader.locator(".reader-facts")).to_contain_text("Coast Weekly · Jo Trevithick")
    link = text.get_by_role("link", name="every twelve seconds")
    assert link.get_attribute("target") == "_blank"
    with reader.expect_popup() as tab:
        link.click()
    assert tab.value.url == site.url + "/light-characteristics.html"
    tab.value.close()
    reader.locator("button[data-size='1']").click()
    assert reader.locator(".reader").get_attribute("data-size") == "4"
    screenshot(reader, "article-reader")

    # Listen: the first words light up as they are spoken, and the light moves on.
    reader.get_by_role("button", name="Listen").click()
    wait_until(reader, "document.querySelector('.reader-text .w.spoken') !== null", message="no word lit up")
    first = spoken_offset(reader)
    wait_until(reader, f"Number(document.querySelector('.reader-text .w.spoken')?.dataset.at) > {first + 10}", message="the light did not move on")
    screenshot(reader, "article-listening")

    # Tap a word in the last paragraph: the voice goes there.
    target = text.locator(".w", has_text="laughed")
    target_at = int(target.get_attribute("data-at"))
    target.click()
    wait_until(reader, f"Number(document.querySelector('.reader-text .w.spoken')?.dataset.at) >= {target_at}", timeout=40, message="the tap did not seek there")
    reader.get_by_role("button", name="Pause").click()
    here = spoken_offset(reader)
    # The place is kept: open it again and Listen starts there.
    wait_until(reader, f"fetch('/api/articles').then(r => r.json()).then(l => l.items[0].lastReadPosition > 0)", message="the place was not saved")
    reader.reload()
    expect(reader.get_by_role("heading", name="The Last Keeper of Gull Rock", level=1)).to_be_visible()
    reader.get_by_role("button", name="Listen").click()
    wait_until(reader, "document.querySelector('.reader-text .w.spoken') !== null")
    assert spoken_offset(reader) >= here - 80, "listening did not resume near where it stopped"
    reader.get_by_role("button", name="Pause").click()
    close(page)


def test_error_sheet_retry_cancel_and_a_shared_note(server, browser):
    page = open_page(browser)
    sign_in(server, page, "Listen")
    # Nothing listens on port 9: the save fails and says why.
    page.goto(server.url + "/listen/save?url=" + "http%3A%2F%2F127.0.0.1%3A9%2Fgone.html&title=Gone")
    sheet = page.locator(".save-sheet")
    expect(sheet.get_by_role("heading", name="Couldn't Save Article")).to_be_visible()
    expect(sheet.locator(".save-error-message")).to_contain_text("could not be reached")
    assert sheet.get_attribute("data-auto-dismiss") == "6000"
    expect(sheet.get_by_role("button", name="Retry")).to_be_visible()
    settled(page)
    screenshot(page, "article-save-error")
    sheet.get_by_role("button", name="Retry").click()
    expect(sheet.get_by_role("heading", name="Couldn't Save Article")).to_be_visible()
    sheet.get_by_role("button", name="Cancel").click()
    expect(page.get_by_role("heading", name="Articles", level=1)).to_be_visible()

    # The Web Share Target: the manifest names the save page; text shared there is saved, and
    # the success sheet goes away by itself after four seconds.
    manifest = json.loads(page.evaluate("fetch('/manifest.webmanifest').then(r => r.text())"))
    assert manifest["share_target"]["action"] == "/listen/save"
    # The page notes when the sheet shows the title and when it has gone, on its own clock, so a
    # slow test process cannot make the sheet's four seconds look shorter than they were.
    page.add_init_script("""(() => {
        window.__sheet = {};
        new MutationObserver(() => {
            const title = document.querySelector('.save-sheet .save-title');
            if (!window.__sheet.shown && title && title.textContent === 'Tide note') window.__sheet.shown = performance.now();
            if (window.__sheet.shown && !window.__sheet.gone && !document.querySelector('.save-sheet')) window.__sheet.gone = performance.now();
        }).observe(document, {childList: true, subtree: true, characterData: true});
    })()""")
    page.goto(server.url + "/listen/save?title=Tide%20note&text=" + "Low%20water%20at%20four.%20Take%20the%20blue%20boat.")
    expect(page.locator(".save-sheet .save-title")).to_have_text("Tide note")
    expect(page.get_by_role("heading", name="Articles", level=1)).to_be_visible()
    wait_until(page, "window.__sheet.gone !== undefined")
    shown_for = page.evaluate("(window.__sheet.gone - window.__sheet.shown) / 1000")
    assert shown_for >= 3.0, f"the success sheet left after {shown_for:.1f} s, before its four seconds"
    expect(page.locator(".article-item", has_text="Tide note")).to_contain_text("Pasted text")
    close(page)


def test_sharing_while_signed_out_saves_after_signing_in(server, browser):
    # The owner exists (another device set it up); this one is signed out.
    first = open_page(browser)
    sign_in(server, first, "Listen")
    close(first)
    page = open_page(browser)
    expect_error(page, 401, r"/api/auth/me$")
    page.goto(server.url + "/listen/save?title=Ferry%20times&text=" + "The%20last%20ferry%20leaves%20at%20ten.")
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    page.get_by_label("Username").fill(OWNER)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    # Signed in, the share goes on where it was going.
    expect(page.locator(".save-sheet .save-title")).to_have_text("Ferry times")
    close(page)


def test_import_an_epub_with_its_chapters(server, browser, tmp_path):
    page = open_page(browser)
    sign_in(server, page, "Listen")
    open_articles(page)
    book = tmp_path / "harbour-songs.epub"
    book.write_bytes(epub_bytes())
    fake = tmp_path / "scan.pdf"
    fake.write_bytes(b"these are not the bytes of a PDF")
    expect_error(page, 422, r"/api/articles/upload$")
    page.locator("[data-upload]").set_input_files([str(fake)])
    expect(page.locator(".article-error")).to_contain_text("named as a PDF but is not one")
    page.locator("[data-upload]").set_input_files([str(book)])
    item = page.locator(".article-item", has_text="Harbour Songs")
    expect(item).to_contain_text("3 chapters")
    screenshot(page, "articles-list")
    item.get_by_role("link").click()
    expect(page.get_by_role("heading", name="Harbour Songs", level=1)).to_be_visible()
    chapters = page.locator("[data-chapter] option")
    expect(chapters).to_have_text(["Low Water", "High Water", "Slack Tide"])
    expect(page.locator(".reader-text")).to_contain_text("The boats lie on their sides in the mud.")
    page.get_by_role("button", name="Next: High Water").click()
    expect(page.locator(".reader-text")).to_contain_text("Now they float and tug at their ropes.")
    page.get_by_role("button", name="Mark as read").click()
    expect(page.get_by_role("button", name="Mark as unread")).to_be_visible()
    page.get_by_role("link", name="Articles").first.click()
    expect(page.locator(".article-group[aria-label='Finished'] .article-item")).to_contain_text("Harbour Songs")
    close(page)


def test_the_bookmarklet_saves_a_page_built_by_its_scripts(server, site, browser):
    """The page as the person sees it: its article exists only after its script ran, so the
    server could not find it by the address; the bookmarklet hands the sheet the document."""
    page = open_page(browser)
    sign_in(server, page, "Listen")
    open_articles(page)
    bookmarklet = page.locator("[data-bookmarklet]").get_attribute("href")
    page.goto(site.url + "/scripted.html")
    expect(page.get_by_role("heading", name="Night Trains")).to_be_visible()
    with page.expect_popup() as opened:
        page.evaluate(bookmarklet[len("javascript:"):])
    sheet_page = opened.value
    sheet_page.on("pageerror", lambda error: page.problems.append(str(error)))
    sheet_page.on("console", lambda message: message.type == "error" and page.problems.append(f"{message.text} (save window)"))
    sheet = sheet_page.locator(".save-sheet")
    expect(sheet.locator(".save-done")).to_contain_text("Saved")
    expect(sheet.locator(".save-title")).to_have_text("Night Trains")
    sheet.get_by_role("link", name="Read").click()
    text = sheet_page.locator(".reader-text")
    expect(text).to_contain_text("The sleeper leaves the city at ten")
    expect(text).to_contain_text("the coffee in the dining car tastes better")
    expect(text).not_to_contain_text("Home")
    sheet_page.close()
    page.close()
