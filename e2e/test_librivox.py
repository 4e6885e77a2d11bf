"""LibriVox in the browser, against a LibriVox-shaped catalog the test serves on 127.0.0.1
(scripts/librivox_fixture.py): search by title and by author, an empty search's advice, and
adding a book, which a job downloads with progress and joins into one book whose chapters are
the sections, with their readers; it then plays in the speech player. Listen now streams the
sections through the server before anything is downloaded."""

import pytest
from playwright.sync_api import expect

from conftest import BINARY, screenshot, sign_in, wait_until
from librivox_fixture import LibriVoxFixture
from reverie_process import ReverieProcess
from test_listen import make


@pytest.fixture(scope="module")
def server():
    sections = [("Chapter I: The Gate", "Ann Reader", make("s1.mp3", 4, "one", frequency=262)),
                ("Chapter II: The Wall", "Ben Reader", make("s2.mp3", 4, "two", frequency=294)),
                ("Chapter III: The Roses", "Ann Reader", make("s3.mp3", 4, "three", frequency=330))]
    site = LibriVoxFixture([
        {"id": 47, "title": "The Quiet Garden", "author": ("Ada", "Hollow"), "sections": sections},
        {"id": 48, "title": "Quiet Letters", "author": ("Ben", "Hollow"), "sections": []},
    ])
    instance = ReverieProcess(BINARY, prefix="reverie-e2e-", librivox=site)
    yield instance
    instance.stop()
    site.stop()


def test_search_and_add_a_book_with_its_sections_as_chapters(server, page):
    sign_in(server, page, "Listen")
    page.get_by_role("link", name="LibriVox").click()
    expect(page.get_by_role("heading", name="LibriVox", level=1)).to_be_visible()
    search = page.get_by_role("searchbox", name="Search LibriVox")

    search.fill("Nothing Like It")
    page.get_by_role("button", name="Search").click()
    expect(page.locator(".librivox-status")).to_contain_text("Nothing on LibriVox called “Nothing Like It”. Try fewer words, or search by author.")

    page.get_by_role("radio", name="Author").check()
    search.fill("Hollow")
    page.get_by_role("button", name="Search").click()
    expect(page.locator(".librivox-book")).to_have_count(2)
    expect(page.locator(".librivox-book", has_text="Quiet Letters").get_by_role("button", name="No recordings yet")).to_be_disabled()

    page.get_by_role("radio", name="Title").check()
    search.fill("Quiet Garden")
    page.get_by_role("button", name="Search").click()
    book = page.locator(".librivox-book", has_text="The Quiet Garden")
    expect(book).to_contain_text("Ada Hollow")
    expect(book).to_contain_text("3 sections")
    expect(book).to_contain_text("Read by Ann Reader, Ben Reader")
    screenshot(page, "librivox-search")

    # Listen now: streamed through the server a section at a time; the next section follows.
    book.get_by_role("button", name="Listen now").click()
    wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.speech.playing && deck.speech.track.title === 'Chapter I: The Gate')",
               message="the stream did not play")
    expect(page.locator(".mini[data-channel=speech] .mini-title")).to_have_text("Chapter I: The Gate")
    page.evaluate("import('/listen/deck.js').then(({ deck }) => deck.speech.seek(3.5))")
    wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.speech.index === 1 && deck.speech.playing)",
               message="the next section did not follow the first")
    page.evaluate("import('/listen/deck.js').then(({ deck }) => deck.pauseAll())")

    book.get_by_role("button", name="Add to library").click()
    expect(book.locator(".librivox-job")).to_be_visible()
    expect(book.get_by_role("link", name="Open the book")).to_be_visible()
    screenshot(page, "librivox-added")
    book.get_by_role("link", name="Open the book").click()
    expect(page.get_by_role("heading", name="The Quiet Garden", level=1)).to_be_visible()
    expect(page.locator(".chapter-title")).to_have_text(["Chapter I: The Gate", "Chapter II: The Wall", "Chapter III: The Roses"])
    expect(page.locator(".chapter-readers").nth(1)).to_have_text("Ben Reader")

    # It plays as one book: chapter 2 starts 4 s in.
    page.locator(".chapter", has_text="The Wall").click()
    wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.speech.playing && deck.speech.position > 4)",
               message="the LibriVox chapter did not play")
    page.evaluate("import('/listen/deck.js').then(({ deck }) => deck.pauseAll())")

    # Back in the library it is a book like any other; the job list is empty again.
    page.get_by_role("link", name="Library", exact=True).click()
    expect(page.locator(".listen-item", has_text="The Quiet Garden")).to_contain_text("3 chapters")
    expect(page.locator(".listen-job")).to_have_count(0)


def test_a_streamed_book_downloaded_plays_on_with_no_network(server, page):
    """Issue 34: the sections Listen now streams, downloaded for offline; with no network the app
    opens again on the speech player's book and it plays from the device, section after section."""
    from conftest import controlled, expect_error
    controlled(server, page, "Listen")
    page.get_by_role("link", name="LibriVox").click()
    page.get_by_role("searchbox", name="Search LibriVox").fill("Quiet Garden")
    page.get_by_role("button", name="Search").click()
    book = page.locator(".librivox-book", has_text="The Quiet Garden")
    book.get_by_role("button", name="Listen now").click()
    wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.speech.playing)", message="the stream did not play")
    page.evaluate("import('/listen/deck.js').then(({ deck }) => deck.pauseAll())")
    book.get_by_role("button", name="Download for offline").click()
    # The whole book is fetched into this device, which can take minutes on a busy machine.
    expect(book.locator(".download-state.done")).to_have_text("On this device", timeout=180_000)
    kept = page.evaluate("""caches.open('reverie-download:librivox:47').then((cache) => cache.keys()).then((keys) => keys.length)""")
    assert kept == 3, kept

    expect_error(page, "offline", r"/api/")
    expect_error(page, "aborted", r"/api/")
    page.context.set_offline(True)
    page.reload()
    expect(page.locator(".mini[data-channel=speech] .mini-title")).to_have_text("Chapter I: The Gate")
    page.evaluate("import('/listen/deck.js').then(({ deck }) => deck.speech.play())")
    wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.speech.playing && deck.speech.position > 0.5)",
               message="the downloaded book did not play offline")
    page.evaluate("import('/listen/deck.js').then(({ deck }) => deck.speech.seek(3.5))")
    wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.speech.index === 1 && deck.speech.playing && deck.speech.position > 0.3)",
               message="the next section did not follow offline")
