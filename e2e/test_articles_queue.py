"""Listening plays on: when an article has been read to its end it is marked read, and the next
saved article (the oldest not yet finished) opens and is read aloud in turn."""

from playwright.sync_api import expect

from conftest import close, open_page, sign_in, wait_until

SAVE = """(note) => fetch('/api/articles', {method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify(note)}).then((answer) => answer.json())"""


def test_listening_plays_on_through_saved_articles(server, browser):
    page = open_page(browser)
    sign_in(server, page, "Listen")
    # (Long enough to be still reading when the test pauses it, on a busy machine too.)
    older = page.evaluate(SAVE, {"title": "Queue one", "text": "The harbour lights came on one by one. The boats came in "
                                 "slowly, one after another, and the gulls settled on the wall. Night fell over the water."})
    newer = page.evaluate(SAVE, {"title": "Queue two", "text": "A short note to hear."})
    page.goto(f"{server.url}/listen/articles/{newer['id']}?action=listen")
    expect(page.get_by_role("heading", name="Queue two", level=1)).to_be_visible()
    wait_until(page, "document.querySelector('.reader-text .w.spoken') !== null", message="the deep link did not start listening")
    # The end of the note: marked read, and the older one opens and speaks.
    # The note is spoken to its end first, which can take minutes on a busy machine.
    expect(page.get_by_role("heading", name="Queue one", level=1)).to_be_visible(timeout=180_000)
    assert page.url.endswith(f"/listen/articles/{older['id']}?action=listen")
    wait_until(page, "document.querySelector('.reader-text .w.spoken') !== null", message="the next article did not play")
    page.get_by_role("button", name="Pause").click()
    finished = page.evaluate(f"fetch('/api/articles/{newer['id']}').then((answer) => answer.json())")
    assert finished["summary"]["status"] == "finished"
    close(page)
