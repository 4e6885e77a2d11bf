"""Bedside in the browser. For now: the browser's Leaf/Masks machine (Web/bedside/mode.js) against the
cases in Tests/Shared/bedside-mode-cases.json, which the Swift machine (Bedside's ContentModeMachine)
answers too: one truth for both."""

import json

from conftest import ROOT, expect_error


def test_the_browser_machine_answers_the_shared_cases(server, page):
    shared = json.loads((ROOT / "Tests" / "Shared" / "bedside-mode-cases.json").read_text())
    expect_error(page, 404, r"/favicon\.ico$")  # a bare image asks for it; the app's pages name their icons
    page.goto(server.url + "/icons/icon.svg")  # the app's origin, without running the app
    problems = page.evaluate("""async (shared) => {
        const mode = await import('/bedside/mode.js');
        const problems = [];
        for (const sharedCase of shared.cases) {
            let machine = mode.createMachine();
            if ('open' in sharedCase) {
                const opened = mode.opened(sharedCase.open);
                machine = opened.machine;
                if ('openEffects' in sharedCase && JSON.stringify(opened.effects) !== JSON.stringify(sharedCase.openEffects)) {
                    problems.push(`${sharedCase.name}, on open: ${JSON.stringify(opened.effects)}`);
                }
            }
            sharedCase.steps.forEach((step, number) => {
                const label = `${sharedCase.name}, step ${number + 1} (${step.event})`;
                const effects = mode.handle(machine, step.event);
                const check = (what, got, want) => {
                    if (want !== undefined && JSON.stringify(got) !== JSON.stringify(want)) {
                        problems.push(`${label}: ${what} ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
                    }
                };
                check('effects', effects, step.effects);
                check('mode', machine.mode, step.mode);
                check('phase', machine.phase, step.phase);
                check('icon', mode.icon(machine), step.icon);
                check('needsGesture', machine.needsGesture, step.needsGesture);
            });
        }
        // Rapid tapping with the player's answers in any order (test 48): never a state the Swift
        // machine cannot reach, and busy states ignore taps.
        let seed = 7;
        const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
        const events = ['tap', 'continueTapped', 'started', 'refused', 'failed', 'finished', 'stopped', 'gapElapsed', 'roomChanged'];
        for (let run = 0; run < 200; run += 1) {
            const machine = mode.createMachine();
            for (let step = 0; step < 60; step += 1) {
                const event = random() < 0.5 ? 'tap' : events[Math.floor(random() * events.length)];
                const before = JSON.stringify(machine);
                const busy = mode.isBusy(machine);
                const effects = mode.handle(machine, event);
                if (busy && (event === 'tap' || event === 'continueTapped' || event === 'roomChanged')
                    && (JSON.stringify(machine) !== before || effects.length)) problems.push(`a ${event} while busy changed ${before}`);
                if (machine.mode === 'off' && (machine.phase !== 'idle' || machine.afterStop)) problems.push(`off but ${JSON.stringify(machine)}`);
                if (machine.phase === 'gap' && machine.mode !== 'meditation') problems.push(`gap in ${machine.mode}`);
            }
        }
        return problems;
    }""", shared)
    assert len(shared["cases"]) >= 10
    assert problems == [], "\n".join(problems)
