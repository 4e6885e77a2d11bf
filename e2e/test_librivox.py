"""LibriVox in the browser, against a LibriVox-shaped catalog the test serves on 127.0.0.1
(scripts/librivox_fixture.py): search by title and by author, an empty search's advice, and
adding a book, which a job downloads with progress and joins into one book whose chapters are
the sections, with their readers; it then plays in the speech player. Listen now streams the
sections through the server before anything is downloaded."""

import pytest
from playwright.sync_api import expect

from conftest import ARTIFACTS, BINARY, close, open_page, screenshot, sign_in, wait_until
from librivox_fixture import LibriVoxFixture
from listening import locked_across_a_join
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
        # Two sections of 20 s, a tone each: the next one plays with the phone locked.
        {"id": 49, "title": "Tide Tables", "author": ("Cy", "Shore"),
         "sections": [("Low Water", "Ann Reader", make("t1.mp3", 20, "low", frequency=330)),
                      ("High Water", "Ben Reader", make("t2.mp3", 20, "high", frequency=880))]},
    ])
    instance = ReverieProcess(BINARY, prefix="reverie-e2e-", librivox=site)
    yield instance
    try:
        instance.stop()
    finally:
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


def deck(expression):
    """`expression` evaluated with the deck (Web/listen/deck.js) in scope."""
    return f"import('/listen/deck.js').then(({{ deck }}) => {expression})"


def test_the_next_section_plays_with_the_phone_locked(server, listening_browser, audio_sink):
    """Issue 46: a LibriVox book streamed (Listen now) on an iPhone. Each section is a file on
    LibriVox's servers; the server joins them into one stream, reading each through its guarded
    client with a Range, so locked across the end of the first (scripts held, Web Audio
    interrupted) the second still sounds, with no script to start it. On waking, the player shows
    the section that is sounding."""
    page = open_page(listening_browser, iphone=True)
    sign_in(server, page, "Listen")
    page.get_by_role("link", name="LibriVox").click()
    page.get_by_role("searchbox", name="Search LibriVox").fill("Tide Tables")
    page.get_by_role("button", name="Search").click()
    page.locator(".librivox-book", has_text="Tide Tables").get_by_role("button", name="Listen now").click()
    wait_until(page, deck("deck.speech.playing && !deck.speech.switching && deck.speech.track.src.startsWith('/api/streams/audio')"),
               message="the sections were not joined into one stream")
    queue = page.evaluate(deck("deck.speech.queue.map((track) => [track.title, track.start, track.end, track.shift])"))
    print(f"the joined sections: {queue}")
    assert [track[0] for track in queue] == ["Low Water", "High Water"] and abs(queue[1][1] - 20) < 0.2, queue
    # To 15 s of the first, then locked across its end.
    page.evaluate(deck("deck.speech.seek(15)"))
    wait_until(page, deck("deck.speech.playing && !deck.speech.switching && deck.speech.offset > 15.2"), message="the seek did not play on")
    heard = locked_across_a_join(page, audio_sink, 880, ARTIFACTS / "librivox-locked.wav", (deck("deck.speech.track.title"), "Low Water"))
    print("locked across the sections' join: {:.0f} Hz at {:.1f} dBFS, then {:.0f} Hz at {:.1f} dBFS".format(*heard))
    assert abs(heard[0] - 330) < 5 and heard[1] > -40, "the first section was not heard before its end"
    assert abs(heard[2] - 880) < 5 and heard[3] > -40, "the next section did not play on with the phone locked"
    wait_until(page, deck("deck.speech.track.title === 'High Water' && deck.speech.playing"), message="the player did not show the next section on waking")
    expect(page.locator(".mini[data-channel=speech] .mini-title")).to_have_text("High Water")
    screenshot(page, "librivox-next-section-after-lock")
    page.evaluate(deck("deck.pauseAll()"))
    close(page)


def test_a_book_in_up_next_is_joined_section_by_section(server, page):
    """Issue 46: a LibriVox book in Up Next plays as one stream, its sections its parts, from the
    section the person is on; the player's queue keeps each section as a track of its own."""
    sign_in(server, page, "Listen")
    queues = page.evaluate("fetch('/api/queues').then((answer) => answer.json())")
    main = queues["queues"][0]["id"]
    added = page.request.post(f"{server.url}/api/queues/{main}/entries", data={"item": "librivox:49"})
    assert added.status == 201, added.text()
    page.goto(f"{server.url}/listen/up-next")
    expect(page.locator(".queue-entries .queue-title")).to_have_text(["Tide Tables"])
    page.get_by_role("button", name="Play Up Next").click()
    wait_until(page, deck("deck.speech.playing && !deck.speech.switching && deck.speech.track.src.startsWith('/api/streams/audio')"),
               message="the book in Up Next was not joined into one stream")
    stream = page.evaluate(deck("({ src: deck.speech.track.src, queue: deck.speech.queue.map((track) => [track.title, track.start, track.shift]) })"))
    print(f"Up Next's stream: {stream}")
    assert "librivox%3A49%2F0" in stream["src"] and "librivox%3A49%2F1" in stream["src"], stream["src"]
    assert [track[0] for track in stream["queue"]] == ["Low Water", "High Water"] and abs(stream["queue"][1][1] - 20) < 0.2, stream
    page.evaluate(deck("deck.pauseAll()"))
