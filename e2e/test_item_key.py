"""Item keys in the browser: Web/item-key.js, the twin of ReverieAPI's ItemKey, against
Tests/Shared/item-key-cases.json, which ItemKeyTests runs in Swift; and the keys the players
write through it, read back as the server reads them."""

from conftest import sign_in
from shared_cases import shared_cases


def test_the_browser_reads_and_writes_item_keys_as_the_shared_cases_say(server, page):
    sign_in(server, page)
    shared = shared_cases("item-key-cases.json")
    mismatches = page.evaluate("""async (cases) => {
        const keys = await import('/item-key.js');
        const wrong = [];
        for (const example of cases) {
            const read = keys.parseItemKey(example.text);
            const label = JSON.stringify(example.text.slice(0, 60));
            if ((read?.key ?? null) !== example.key) { wrong.push(`${label} reads as ${read?.key ?? null}, not ${example.key}`); continue; }
            if (!read) continue;
            if (read.kind !== example.kind || read.id !== example.id || read.part !== example.part)
                wrong.push(`${label} reads as ${JSON.stringify(read)}`);
            if (keys.itemKey(read.kind, read.id, read.part) !== read.key) wrong.push(`${label} is written as ${keys.itemKey(read.kind, read.id, read.part)}`);
            if (keys.parseItemKey(read.key)?.key !== read.key) wrong.push(`${label}'s key does not read back as itself`);
        }
        return wrong;
    }""", shared["cases"])
    assert len(shared["cases"]) > 20
    assert mismatches == [], "\n".join(mismatches)


def test_a_key_written_in_the_browser_is_the_one_the_server_keeps(server, page):
    """A place sent under a key with its id in capitals is kept, and found, under the key in small
    letters, as every player writes it."""
    sign_in(server, page)
    found = page.evaluate("""async () => {
        const id = 'A0B1C2D3-E4F5-4A6B-8C7D-9E0F1A2B3C4D';
        const event = { id: crypto.randomUUID(), item: 'library:' + id + '/2', device: 'phone', at: new Date().toISOString(),
                        position: 12.5, kind: 'pause' };
        const sent = await fetch('/api/progress/events', { method: 'POST', headers: { 'Content-Type': 'application/json' },
                                                           body: JSON.stringify({ events: [event] }) });
        if (!sent.ok) return `the server refused it: ${sent.status} ${await sent.text()}`;
        const place = await (await fetch('/api/progress/' + encodeURIComponent('library:a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d/2'))).json();
        return place.position;
    }""")
    assert found == 12.5, found
