"""Listen in the browser: the library's empty states, uploads with a progress bar (an M4B becomes
a book with its chapters and cover, an MP3 music, a zip of MP3 parts one book), a book's page,
a picked chapter playing from its own start in the speech player (never a saved place: the
seed's Saved Position Restoration Guard), and delete with Undo. The two players themselves are
test_listen_player.py's."""

import io
import subprocess
import tempfile
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import expect_error, screenshot, sign_in, wait_until


def make(name, seconds, title, chapters=(), cover=False, frequency=440):
    """An audio file made by ffmpeg with tags, chapters (title, start ms) and a cover."""
    folder = Path(tempfile.mkdtemp(prefix="reverie-listen-"))
    meta = folder / "meta.txt"
    text = f";FFMETADATA1\ntitle={title}\nartist=Ann Author\n"
    ends = [start for _, start in chapters[1:]] + [int(seconds * 1000)]
    for (chapter, start), end in zip(chapters, ends):
        text += f"[CHAPTER]\nTIMEBASE=1/1000\nSTART={start}\nEND={end}\ntitle={chapter}\n"
    meta.write_text(text)
    out = folder / name
    args = ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"sine=frequency={frequency}:duration={seconds}", "-i", str(meta)]
    if cover:
        args += ["-f", "lavfi", "-i", "color=c=0x0e7490:s=400x400:d=0.04"]
    args += ["-map", "0:a", "-map_metadata", "1", "-map_chapters", "1"]
    if cover:
        args += ["-map", "2:v", "-c:v", "mjpeg", "-disposition:v", "attached_pic"]
    args += ["-c:a", "libmp3lame"] if name.endswith(".mp3") else ["-c:a", "aac"]
    subprocess.run(args + [str(out)], check=True)
    return out


@pytest.fixture(scope="module")
def files():
    book = make("The Night Book.m4b", 12, "The Night Book", [("Dusk", 0), ("Midnight", 4000), ("Dawn", 8000)], cover=True)
    song = make("lullaby.mp3", 4, "Lullaby", frequency=330)
    parts = Path(tempfile.mkdtemp(prefix="reverie-listen-")) / "Sea Tales.zip"
    with zipfile.ZipFile(parts, "w") as archive:
        for index, (title, frequency) in enumerate([("The Harbour", 262), ("The Storm", 294)], start=1):
            archive.write(make(f"{index:02d}.mp3", 3, title, frequency=frequency), f"Sea Tales/{index:02d} {title}.mp3")
    return {"book": book, "song": song, "zip": parts}


def open_listen(server, page):
    sign_in(server, page)
    page.get_by_role("navigation", name="Areas").get_by_role("link", name="Listen", exact=True).click()
    expect(page.get_by_role("heading", name="Listen", level=1)).to_be_visible()


def test_upload_a_book_open_it_and_play_a_chapter_from_its_start(server, page, files):
    """Checklist, M4B Audiobooks: Import M4B - chapters detected; Play chapter - starts at correct time."""
    open_listen(server, page)
    expect(page.get_by_role("tab", name="Books")).to_have_attribute("aria-selected", "true")
    expect(page.get_by_text("No books yet.")).to_be_visible()
    page.get_by_role("tab", name="Music").click()
    expect(page.get_by_text("No music yet.")).to_be_visible()
    screenshot(page, "listen-empty")

    # Watch the progress bar while the upload runs: it shows, and it reaches 100%.
    page.evaluate("""() => {
        window.uploadSeen = [];
        const box = document.querySelector('.listen-progress');
        new MutationObserver(() => {
            if (!box.hidden) window.uploadSeen.push([box.querySelector('progress').value, box.textContent.trim()]);
        }).observe(box, {attributes: true, subtree: true, childList: true, characterData: true});
    }""")
    page.locator("[data-upload]").set_input_files(str(files["book"]))
    expect(page.get_by_role("tab", name="Books")).to_have_attribute("aria-selected", "true")
    seen = page.evaluate("window.uploadSeen")
    assert any(text.startswith("Uploading The Night Book.m4b") for _, text in seen), seen
    assert max(value for value, _ in seen) == 100, seen
    expect(page.locator(".listen-progress")).to_be_hidden()
    item = page.locator(".listen-item", has_text="The Night Book")
    expect(item).to_be_visible()
    expect(item).to_contain_text("Ann Author · 3 chapters")
    expect(item.locator("img.listen-art")).to_be_visible()
    wait_until(page, "document.querySelector('img.listen-art').naturalWidth > 0", message="the cover never loaded")
    screenshot(page, "listen-books")

    item.get_by_role("link").click()
    expect(page.get_by_role("heading", name="The Night Book", level=1)).to_be_visible()
    chapters = page.locator(".chapter")
    expect(chapters).to_have_count(3)
    expect(chapters.nth(1)).to_contain_text("Midnight")
    expect(page.get_by_role("img", name="Cover of The Night Book")).to_be_visible()
    screenshot(page, "listen-book")

    # Play chapter 3: the speech player starts at 8 s.
    chapters.nth(2).click()
    position = "import('/listen/deck.js').then(({ deck }) => deck.speech.audio.readyState >= 1 && deck.speech.position)"
    wait_until(page, f"{position}.then((at) => at >= 7.9)", message="the chapter did not start at its own start")
    # Where the audio began to play, from its own record (a second read of the position would be
    # wherever it has got to since, later on a busy machine).
    start = page.evaluate("import('/listen/deck.js').then(({ deck }) => deck.speech.audio.played.start(0))")
    assert 7.9 <= start < 8.8, start
    expect(page.locator(".mini[data-channel=speech] .mini-title")).to_have_text("Dawn")
    screenshot(page, "listen-book-playing")

    # Having listened there, picking chapter 1 still starts chapter 1, not the saved place.
    chapters.nth(0).click()
    wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.speech.index === 0)", message="chapter 1 was not picked")
    # A jump to the saved place (near 8 s) would be the audio element's seek, in real time, which
    # the page's clock does not run: so chapter 1 plays on half a second of its own audio first.
    at = wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.speech.playing && !deck.speech.audio.seeking"
                          " && deck.speech.position >= 0.5 && deck.speech.position)", message="chapter 1 did not play")
    assert at < 4, f"chapter 1 jumped to {at} s, the saved place"
    assert page.evaluate("import('/listen/deck.js').then(({ deck }) => deck.speech.index)") == 0
    page.evaluate("import('/listen/deck.js').then(({ deck }) => deck.pauseAll())")

    # The book's address opens the book on a reload; the library link goes back.
    page.reload()
    expect(page.get_by_role("heading", name="The Night Book", level=1)).to_be_visible()
    page.get_by_role("link", name="Library").click()
    expect(page.locator(".listen-item", has_text="The Night Book")).to_be_visible()


def test_music_a_zip_of_parts_errors_and_undo(server, page, files):
    open_listen(server, page)
    page.locator("[data-upload]").set_input_files(str(files["song"]))
    expect(page.get_by_role("tab", name="Music")).to_have_attribute("aria-selected", "true")
    song = page.locator(".listen-item", has_text="Lullaby")
    expect(song).to_be_visible()

    # A zip of MP3 parts: one book, a chapter a part, in order.
    page.locator("[data-upload]").set_input_files(str(files["zip"]))
    book = page.locator(".listen-item", has_text="Sea Tales")
    expect(book).to_contain_text("2 chapters")
    book.get_by_role("link").click()
    expect(page.locator(".chapter-title")).to_have_text(["The Harbour", "The Storm"])
    page.get_by_role("link", name="Library").click()

    # Not audio: the person is told, nothing is added.
    expect_error(page, 415, r"/api/library$")
    page.locator("[data-upload]").set_input_files(files={"name": "notes.mp3", "mimeType": "audio/mpeg", "buffer": b"just words"})
    expect(page.locator(".listen-error")).to_contain_text("notes.mp3: This is not an audio file Reverie can read")
    screenshot(page, "listen-upload-refused")

    # Delete with Undo: the song comes back; deleted again and left, it is gone on the server.
    page.get_by_role("tab", name="Music").click()
    page.get_by_role("button", name="Delete Lullaby").click()
    expect(song).to_have_count(0)
    expect(page.get_by_text("Deleted “Lullaby”.")).to_be_visible()
    page.get_by_role("button", name="Undo").click()
    expect(song).to_be_visible()
    page.get_by_role("button", name="Delete Lullaby").click()
    page.get_by_role("navigation", name="Areas").get_by_role("link", name="Write", exact=True).click()
    wait_until(page, """fetch('/api/library?kind=music', {credentials: 'same-origin'}).then(r => r.json())
                        .then(b => b.items.length === 0)""", message="the delete never reached the server")
