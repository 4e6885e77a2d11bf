"""Up Next (issue 35), as a listener with a laptop and a phone would use it: items added from the
places they live (Add to Up Next, Play Next, a named list), the same order on both devices,
reordered by dragging on one and by the keyboard on the other, removed with Undo; and a queue of
two books and an article that plays through, the next item loaded before the current one ends."""

import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import ARTIFACTS, BINARY, close, open_page, screenshot, sign_in, start_server, wait_until
from listening import chapter_book, level, locked, locked_across_a_join

SAVE = """(note) => fetch('/api/articles', {method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify(note)}).then((answer) => answer.json())"""
QUEUES = "fetch('/api/queues').then((answer) => answer.json())"


@pytest.fixture
def server():
    """A server of each test's own: each begins with an empty Up Next."""
    assert BINARY.exists(), f"{BINARY} is missing: run `swift build` first (make test does)."
    instance = start_server()
    yield instance
    instance.stop()


def deck(page, expression):
    """`expression` evaluated with the deck (Web/listen/deck.js) in scope."""
    return f"import('/listen/deck.js').then(({{ deck }}) => {expression})"


def up_next_titles(page):
    return [entry["title"] for entry in page.evaluate(QUEUES)["queues"][0]["entries"]]


def shown(page):
    return page.locator(".queue-entries .queue-title")


def test_two_devices_one_order(server, browser):
    laptop = open_page(browser)
    sign_in(server, laptop, "Listen")
    tide, moss, rain = (laptop.evaluate(SAVE, {"title": title, "text": f"{title} begins.\n\nAnd then it ends."}) for title in ("Tide", "Moss", "Rain"))

    # The empty list says how to fill it.
    laptop.get_by_role("link", name="Up Next").click()
    expect(laptop.get_by_role("heading", name="Up Next", level=1)).to_be_visible()
    expect(laptop.locator(".queue-empty")).to_contain_text("Nothing in Up Next")
    screenshot(laptop, "up-next-empty")

    # Added from each article's page: two to the end, the third to play next (second).
    for article, button, count in ((tide, "Add to Up Next", 1), (moss, "Add to Up Next", 2), (rain, "Play Next", 3)):
        laptop.goto(f"{server.url}/listen/articles/{article['id']}")
        expect(laptop.get_by_role("heading", name=article["title"], level=1)).to_be_visible()
        laptop.get_by_role("button", name=button).click()
        wait_until(laptop, f"{QUEUES}.then((answer) => answer.queues[0].entries.length === {count})", message=f"{article['title']} was not added")
    assert up_next_titles(laptop) == ["Tide", "Rain", "Moss"], "Play Next puts the item second"
    laptop.goto(f"{server.url}/listen/up-next")
    expect(shown(laptop)).to_have_text(["Tide", "Rain", "Moss"])

    # The phone has the same queue.
    phone = open_page(browser)
    sign_in(server, phone)
    phone.goto(f"{server.url}/listen/up-next")
    expect(shown(phone)).to_have_text(["Tide", "Rain", "Moss"])

    # Dragged on the laptop: Moss by its handle, above Rain.
    handle = laptop.locator(".queue-entry", has_text="Moss").locator("[data-handle]")
    target = laptop.locator(".queue-entry", has_text="Rain").bounding_box()
    box = handle.bounding_box()
    laptop.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    laptop.mouse.down()
    laptop.mouse.move(box["x"] + box["width"] / 2, target["y"] + target["height"] * 0.4, steps=6)
    laptop.mouse.move(box["x"] + box["width"] / 2, target["y"] + target["height"] * 0.2, steps=2)
    laptop.mouse.up()
    expect(shown(laptop)).to_have_text(["Tide", "Moss", "Rain"])
    wait_until(laptop, f"{QUEUES}.then((answer) => answer.queues[0].entries.map((entry) => entry.title).join() === 'Tide,Moss,Rain')",
               message="the dragged order did not reach the server")
    phone.reload()
    expect(shown(phone)).to_have_text(["Tide", "Moss", "Rain"])

    # Moved by the keyboard on the phone: Tide's handle focused, one step down.
    phone.locator(".queue-entry", has_text="Tide").locator("[data-handle]").focus()
    phone.keyboard.press("ArrowDown")
    expect(shown(phone)).to_have_text(["Moss", "Tide", "Rain"])
    expect(phone.locator(".queue-entry", has_text="Tide").locator("[data-handle]")).to_be_focused()
    wait_until(phone, f"{QUEUES}.then((answer) => answer.queues[0].entries.map((entry) => entry.title).join() === 'Moss,Tide,Rain')",
               message="the keyboard's order did not reach the server")
    laptop.reload()
    expect(shown(laptop)).to_have_text(["Moss", "Tide", "Rain"])

    # Removed, then brought back where it was.
    laptop.get_by_role("button", name="Remove “Tide” from Up Next").click()
    expect(shown(laptop)).to_have_text(["Moss", "Rain"])
    expect(laptop.locator(".listen-undo")).to_contain_text("Removed “Tide” from Up Next.")
    laptop.locator(".listen-undo").get_by_role("button", name="Undo").click()
    expect(shown(laptop)).to_have_text(["Moss", "Tide", "Rain"])
    assert up_next_titles(laptop) == ["Moss", "Tide", "Rain"]

    # A named list, filled from an article's page, playable on its own.
    laptop.get_by_role("button", name="New list").click()
    laptop.get_by_role("dialog").get_by_label("Name").fill("Bedtime")
    laptop.get_by_role("dialog").get_by_role("button", name="Make list").click()
    expect(laptop.get_by_role("tab", name="Bedtime 0")).to_have_attribute("aria-selected", "true")
    expect(laptop.locator(".queue-empty")).to_contain_text("“Bedtime” is empty.")
    laptop.goto(f"{server.url}/listen/articles/{rain['id']}")
    laptop.get_by_label("A list to add to").select_option(label="Bedtime")
    laptop.get_by_role("button", name="Add to list").click()
    wait_until(laptop, f"{QUEUES}.then((answer) => answer.queues[1].entries.length === 1)", message="Rain was not added to Bedtime")
    laptop.goto(f"{server.url}/listen/up-next")
    laptop.get_by_role("tab", name="Bedtime 1").click()
    expect(shown(laptop)).to_have_text(["Rain"])
    expect(laptop.get_by_role("button", name="Play Bedtime")).to_be_enabled()
    laptop.get_by_role("tab", name="Up Next 3").click()
    expect(shown(laptop)).to_have_text(["Moss", "Tide", "Rain"])
    screenshot(laptop, "up-next")
    close(laptop, phone)


def test_a_queue_plays_through_with_the_next_loaded_ahead(server, browser):
    """Tonight's episode, a book's chapters, a one-chapter book and an article, one after another."""
    folder = Path(tempfile.mkdtemp(prefix="reverie-up-next-"))
    page = open_page(browser)
    sign_in(server, page, "Listen")
    podcast = page.request.post(f"{server.url}/api/podcasts", data={"feedURL": f"{server.podcasts.url}/feeds/night.xml"})
    assert podcast.ok, podcast.text()
    episodes = page.request.get(f"{server.url}/api/podcasts/{podcast.json()['id']}").json()["episodes"]
    owl = next(episode for episode in episodes if episode["title"] == "The Tawny Owl")
    books = {}
    # Two chapters, and a single one: an item of one track leads straight into the next too.
    for title, tones in (("Dawn", (440, 660)), ("Solo", (500,))):
        path = chapter_book(folder, f"{title}.m4b", tones=tones, chapter_seconds=2.5, title=title)
        answer = page.request.post(f"{server.url}/api/library", data=path.read_bytes(), headers={"Content-Type": "audio/mp4", "X-File-Name": path.name})
        assert answer.ok, answer.text()
        books[title] = answer.json()["item"]
    note = page.evaluate(SAVE, {"title": "Short note", "text": "A short note to hear at the end."})

    # The episode from its page, Dawn from its book page, the rest through the API.
    page.goto(f"{server.url}/listen/episode/{owl['id']}")
    expect(page.get_by_role("heading", name="The Tawny Owl", level=1)).to_be_visible()
    page.locator(".episode-actions").get_by_role("button", name="Add to Up Next").click()
    wait_until(page, f"{QUEUES}.then((answer) => answer.queues[0].entries.length === 1)", message="the episode was not added")
    page.goto(f"{server.url}/listen/book/{books['Dawn']['id']}")
    expect(page.get_by_role("heading", name="Dawn", level=1)).to_be_visible()
    page.get_by_role("button", name="Add to Up Next").click()
    wait_until(page, f"{QUEUES}.then((answer) => answer.queues[0].entries.length === 2)", message="Dawn was not added")
    main = page.evaluate(QUEUES)["queues"][0]["id"]
    for item in (f"library:{books['Solo']['id']}", f"article:{note['id']}"):
        added = page.request.post(f"{server.url}/api/queues/{main}/entries", data={"item": item})
        assert added.status == 201, added.text()

    page.goto(f"{server.url}/listen/up-next")
    expect(shown(page)).to_have_text(["The Tawny Owl", "Dawn", "Solo", "Short note"])
    page.evaluate("""import('/listen/deck.js').then(({ deck }) => {
        window.heard = [];
        deck.speech.addEventListener('track', () => { const album = deck.speech.track?.album; if (album && window.heard.at(-1) !== album) window.heard.push(album); });
    })""")
    page.get_by_role("button", name="Play Up Next").click()
    wait_until(page, deck(page, "deck.speech.playing && deck.speech.track.album === 'Night Owls' && deck.speech.fileDuration > 20"),
               message="the queue did not start with the episode")
    expect(page.locator(".queue-entry.current")).to_contain_text("The Tawny Owl")
    # Dawn's tracks are behind the episode's while it still plays.
    wait_until(page, deck(page, "deck.speech.track.album === 'Night Owls' && deck.speech.queue.some((track) => track.album === 'Dawn')"),
               message="the next item was not loaded before the current one ended")
    # To the episode's last seconds, as if it had played that far; its end leads into Dawn.
    page.evaluate(deck(page, """(() => { const c = deck.speech;
        const last = c.queue.findLastIndex((track) => track.entry === c.track.entry);
        return c.load(c.queue, last, { play: true, at: c.fileDuration - 1.5 }); })()"""))
    wait_until(page, deck(page, "deck.speech.playing && deck.speech.track.album === 'Dawn'"), message="Dawn did not follow the episode")
    wait_until(page, f"{QUEUES}.then((answer) => answer.queues[0].entries.map((entry) => entry.title).join() === 'Dawn,Solo,Short note')",
               message="the episode did not leave the queue once played")
    expect(shown(page)).to_have_text(["Dawn", "Solo", "Short note"])
    wait_until(page, f"fetch('/api/episodes/{owl['id']}').then((answer) => answer.json()).then((episode) => episode.played)",
               message="the episode was not marked played")
    wait_until(page, f"fetch('/api/library/{books['Dawn']['id']}').then((answer) => answer.json()).then((book) => book.chapters.every((chapter) => chapter.played))",
               message="Dawn's chapters were not marked played")
    # Then the article, spoken, and the queue is done.
    wait_until(page, deck(page, "deck.speech.playing && deck.speech.track.album === 'Short note'"), timeout=90,
               message="the article did not follow the books")
    wait_until(page, f"{QUEUES}.then((answer) => answer.queues[0].entries.length === 0)", timeout=60, message="the queue did not play to its end")
    assert page.evaluate("window.heard") == ["Night Owls", "Dawn", "Solo", "Short note"], "each item once, in the queue's order"
    expect(page.locator(".queue-empty")).to_contain_text("Nothing in Up Next")
    finished = page.evaluate(f"fetch('/api/articles/{note['id']}').then((answer) => answer.json())")
    assert finished["summary"]["status"] == "finished"
    screenshot(page, "up-next-played")
    close(page)


def test_the_next_item_plays_with_the_phone_locked(server, listening_browser, audio_sink):
    """Two books of 20 s, a tone each, in Up Next on an iPhone: the server joins them into one
    stream. A third put to play next while the first plays is joined in after it. With the page
    locked under the model (its scripts held, Web Audio interrupted) across the end of the first,
    the next still sounds, with no script to start it. On waking, the page reads where the stream
    is: the first is marked played and has left the queue, and the next is the one shown (issue 46)."""
    folder = Path(tempfile.mkdtemp(prefix="reverie-joined-"))
    page = open_page(listening_browser, iphone=True)
    sign_in(server, page, "Listen")
    books = []
    for title, tone in (("Low Tide", 330), ("High Tide", 880), ("Mid Tide", 550)):
        path = chapter_book(folder, f"{title}.m4b", tones=(tone,), chapter_seconds=20.0, title=title)
        answer = page.request.post(f"{server.url}/api/library", data=path.read_bytes(), headers={"Content-Type": "audio/mp4", "X-File-Name": path.name})
        assert answer.ok, answer.text()
        books.append(answer.json()["item"])
    main = page.evaluate(QUEUES)["queues"][0]["id"]
    for book in books[:2]:
        added = page.request.post(f"{server.url}/api/queues/{main}/entries", data={"item": f"library:{book['id']}"})
        assert added.status == 201, added.text()

    page.goto(f"{server.url}/listen/up-next")
    expect(shown(page)).to_have_text(["Low Tide", "High Tide"])
    page.get_by_role("button", name="Play Up Next").click()
    wait_until(page, deck(page, "deck.speech.playing && !deck.speech.switching && deck.speech.track.src.startsWith('/api/streams/audio')"),
               message="Up Next was not joined into one stream")
    stream = page.evaluate(deck(page, "({ queue: deck.speech.queue.map((t) => [t.album, t.start, t.end, t.shift]), duration: deck.speech.fileDuration })"))
    print(f"the joined stream: {stream}")
    assert [track[0] for track in stream["queue"]] == ["Low Tide", "High Tide"] and abs(stream["duration"] - 40) < 0.2, stream
    # Play Next while it plays: joined again, the new one after the current, which plays on.
    page.evaluate(f"import('/listen/queues.js').then(({{ queues }}) => queues.add('library:{books[2]['id']}', {{ at: 'next' }}))")
    wait_until(page, deck(page, "deck.speech.queue.map((track) => track.album).join() === 'Low Tide,Mid Tide,High Tide' && !deck.speech.switching && deck.speech.playing"),
               message="the book put to play next was not joined in after the current one")
    expect(shown(page)).to_have_text(["Low Tide", "Mid Tide", "High Tide"])
    # To 16 s of the first (a person who skipped ahead), then locked across its end.
    page.evaluate(deck(page, "deck.speech.seek(16)"))
    wait_until(page, deck(page, "deck.speech.playing && !deck.speech.switching && deck.speech.offset > 16.2"), message="the seek did not play on")
    heard = locked_across_a_join(page, audio_sink, 550, ARTIFACTS / "up-next-locked.wav", (deck(page, "deck.speech.track.album"), "Low Tide"))
    print("locked across the join: {:.0f} Hz at {:.1f} dBFS, then {:.0f} Hz at {:.1f} dBFS".format(*heard))
    assert abs(heard[0] - 330) < 5 and heard[1] > -40, "the first book was not heard before its end"
    assert abs(heard[2] - 550) < 5 and heard[3] > -40, "the next book did not play on with the phone locked"
    # Awake: where the stream is, the next book; the first played and gone from the queue.
    wait_until(page, deck(page, "deck.speech.track.album === 'Mid Tide'"), message="the page did not follow the stream on waking")
    wait_until(page, f"{QUEUES}.then((answer) => answer.queues[0].entries.map((entry) => entry.title).join() === 'Mid Tide,High Tide')",
               message="the first book did not leave Up Next")
    wait_until(page, f"fetch('/api/library/{books[0]['id']}').then((answer) => answer.json()).then((book) => book.chapters.every((chapter) => chapter.played))",
               message="the first book was not marked played")
    expect(shown(page)).to_have_text(["Mid Tide", "High Tide"])
    # The next one's place is kept in its own seconds, not the stream's.
    page.evaluate(deck(page, "deck.speech.pause()"))
    wait_until(page, f"fetch('/api/library/{books[2]['id']}').then((answer) => answer.json()).then((book) => book.progress && book.progress.position > 1 && book.progress.position < 20)",
               message="the second book's place was not kept in its own seconds")
    screenshot(page, "up-next-joined-after-lock")
    close(page)


def test_an_article_after_a_book_plays_with_the_phone_locked(server, listening_browser, audio_sink):
    """A book of 20 s (a tone) and then an article in Up Next on an iPhone: the article's parts are
    spoken ahead, and once they are, it is joined into the stream after the book (issue 46). Locked
    across the book's end, the article's voice is heard with no script to start it; on waking the
    book has left the queue, and once the article is heard through it is read and the queue done."""
    folder = Path(tempfile.mkdtemp(prefix="reverie-joined-"))
    page = open_page(listening_browser, iphone=True)
    sign_in(server, page, "Listen")
    path = chapter_book(folder, "Low Tide.m4b", tones=(330,), chapter_seconds=20.0, title="Low Tide")
    answer = page.request.post(f"{server.url}/api/library", data=path.read_bytes(), headers={"Content-Type": "audio/mp4", "X-File-Name": path.name})
    assert answer.ok, answer.text()
    book = answer.json()["item"]
    # Two spoken parts: the first is kept short (about 240 characters) so its voice starts at once.
    note = page.evaluate(SAVE, {"title": "Night note", "text": (
        "The tide goes out under the moon, and the harbour grows quiet. The last of the gulls fold their wings on the posts, "
        "the ropes creak against the pier, and a lamp still burns in the window of the net loft above the slipway.\n\n"
        "The boats rest on the sand until morning comes, and the water slowly finds its way back in.")})
    main = page.evaluate(QUEUES)["queues"][0]["id"]
    for item in (f"library:{book['id']}", f"article:{note['id']}"):
        added = page.request.post(f"{server.url}/api/queues/{main}/entries", data={"item": item})
        assert added.status == 201, added.text()

    page.goto(f"{server.url}/listen/up-next")
    expect(shown(page)).to_have_text(["Low Tide", "Night note"])
    page.get_by_role("button", name="Play Up Next").click()
    wait_until(page, deck(page, "deck.speech.playing && !deck.speech.switching && deck.speech.track.src.startsWith('/api/streams/audio')"
                                " && deck.speech.queue.some((track) => track.album === 'Night note' && track.shift != null)"),
               message="the article was not joined into the stream after the book")
    parts = page.evaluate(deck(page, "deck.speech.queue.filter((track) => track.album === 'Night note').length"))
    assert parts == 2, f"the article was joined as {parts} parts"
    # Each part heard once (a part given again by the article's part-by-part source would repeat).
    page.evaluate(deck(page, """(window.parts = [], deck.speech.addEventListener('track', () => {
        const track = deck.speech.track, last = window.parts.at(-1);
        if (track?.album === 'Night note' && !(last && last.track === track)) window.parts.push({ track, part: track.part }); }))"""))
    # To 16 s of the book, then locked across its end.
    page.evaluate(deck(page, "deck.speech.seek(16)"))
    wait_until(page, deck(page, "deck.speech.playing && !deck.speech.switching && deck.speech.offset > 16.2"), message="the seek did not play on")
    with audio_sink.record() as recording:
        with locked(page):
            recording.wait_until_heard(330, seconds=1.0, message="the book was not heard before its end")
            recording.wait_until_sounding(330, message="the article's voice did not follow the book with the phone locked")
            assert page.evaluate(deck(page, "deck.speech.track.album")) == "Low Tide", "a script ran while locked"
        sound = recording.samples()
    recording.save(ARTIFACTS / "up-next-article-locked.wav")
    end = len(sound) / 48_000
    print(f"an article joined after a book ({parts} spoken parts), locked: {level(sound[int((end - 1) * 48_000):]):.1f} dBFS of voice after the tone")
    # Awake: the article sounds and is shown; the book is played and gone from the queue.
    wait_until(page, deck(page, "deck.speech.track.album === 'Night note'"), message="the page did not follow the stream on waking")
    wait_until(page, f"{QUEUES}.then((answer) => answer.queues[0].entries.map((entry) => entry.title).join() === 'Night note')",
               message="the book did not leave Up Next")
    # Heard through: read, and the queue done.
    wait_until(page, f"{QUEUES}.then((answer) => answer.queues[0].entries.length === 0)", message="the queue did not play to its end")
    wait_until(page, f"fetch('/api/articles/{note['id']}').then((answer) => answer.json()).then((article) => article.summary.status === 'finished')",
               message="the article heard through was not marked read")
    heard = page.evaluate("window.parts.map((entry) => entry.part)")
    assert heard == [0, 1], f"each part of the article once, in order: {heard}"
    close(page)


def test_the_next_song_plays_with_the_phone_locked(server, listening_browser, audio_sink):
    """Two songs of 8 s on an iPhone: the one played starts from its own file within the tap, then it
    and the next are joined by the server into one stream, so locked across its end (scripts held,
    Web Audio interrupted) the next song still sounds; on waking the player shows it (issue 46)."""
    folder = Path(tempfile.mkdtemp(prefix="reverie-songs-"))
    page = open_page(listening_browser, iphone=True)
    sign_in(server, page, "Listen")
    tones = {"Ebb Song": 392, "Flow Song": 784}
    for title, tone in tones.items():
        path = chapter_book(folder, f"{title}.mp3", tones=(tone,), chapter_seconds=8.0, title=title)
        answer = page.request.post(f"{server.url}/api/library?kind=music", data=path.read_bytes(),
                                   headers={"Content-Type": "audio/mpeg", "X-File-Name": path.name})
        assert answer.ok, answer.text()
    page.goto(f"{server.url}/listen")
    page.get_by_role("tab", name="Music").click()
    rows = page.locator(".listen-item")
    expect(rows).to_have_count(2)
    order = [rows.nth(index).locator(".listen-title").inner_text().strip() for index in range(2)]
    first, second = (next(title for title in tones if title in shown_title) for shown_title in order)
    rows.nth(0).locator("[data-play]").click()
    wait_until(page, deck(page, "deck.music.playing && !deck.music.switching && deck.music.track.src.startsWith('/api/streams/audio')"),
               message="the songs were not joined into one stream")
    page.evaluate(deck(page, "deck.music.seek(5)"))
    wait_until(page, deck(page, "deck.music.playing && !deck.music.switching && deck.music.offset > 5.2"), message="the seek did not play on")
    heard = locked_across_a_join(page, audio_sink, tones[second], ARTIFACTS / "next-song-locked.wav",
                                 (deck(page, "deck.music.track.title"), first))
    print("locked across the songs' join: {:.0f} Hz at {:.1f} dBFS, then {:.0f} Hz at {:.1f} dBFS".format(*heard))
    assert abs(heard[0] - tones[first]) < 5, f"{first} was not heard first"
    assert abs(heard[2] - tones[second]) < 5 and heard[3] > -40, f"{second} did not play on with the phone locked"
    wait_until(page, deck(page, f"deck.music.track.title === {second!r}"), message="the player did not show the next song on waking")
    page.evaluate(deck(page, "deck.music.pause()"))
    close(page)
