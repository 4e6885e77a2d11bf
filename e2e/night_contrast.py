"""Text contrast as a person sees it, measured in the page from computed styles (WCAG 2.2, 1.4.3).

`measure(page, scope)` finds every visible piece of text under `scope` (a CSS selector) and works
out the colour it is drawn in and the colour behind it:

- the background behind it is found by walking up its ancestors and painting their background
  colours from the outermost in, each `rgba` colour blended over what is under it, until the
  first opaque one; a background gradient counts as each of its colour stops (the worst one is
  the text's ratio), so a card that fades from one colour to another is checked at both ends;
- an ancestor's `opacity` is a group: the text and the backgrounds inside it are mixed with what
  is behind that ancestor by its opacity (a dimmed tab bar dims its labels);
- a text colour with alpha is blended over that background.

The ratio is WCAG's: (L1 + 0.05) / (L2 + 0.05) from the relative luminance of sRGB colours.
Text needs 4.5:1, or 3:1 when it is large (24 px, or 18.66 px and bold). Disabled controls are
left out, as WCAG leaves them out; so is text that is not painted (hidden, clipped to a pixel
for screen readers, or inside an SVG icon).

`axe_contrast(page, scope)` asks axe-core's own color-contrast rule the same question, as a second
opinion that also sees what lies under a translucent bar (it reads the stack of boxes at the
text's place, not only its ancestors)."""

from axe_playwright_python.sync_playwright import Axe

MEASURE = r"""(scope) => {
    const probe = document.createElement('i');
    probe.style.display = 'none';
    document.body.append(probe);
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 1;
    const pen = canvas.getContext('2d', {willReadFrequently: true});
    // Any CSS colour (rgb, color(srgb …), color-mix, oklch, a name) as [r, g, b, a] with r, g, b
    // in 0…255: the browser resolves it; what it leaves in another space (oklch) it paints.
    const parse = (css) => {
        probe.style.color = '';
        probe.style.color = css;
        const resolved = getComputedStyle(probe).color;
        let m = resolved.match(/^rgba?\(([^)]*)\)$/);
        if (m) {
            const p = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
            return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
        }
        m = resolved.match(/^color\(srgb ([^)]*)\)$/);
        if (m) {
            const p = m[1].split(/[\s/]+/).filter(Boolean).map(Number);
            return [p[0] * 255, p[1] * 255, p[2] * 255, p.length > 3 ? p[3] : 1];
        }
        pen.clearRect(0, 0, 1, 1);
        pen.fillStyle = '#000';
        pen.fillStyle = resolved;
        pen.fillRect(0, 0, 1, 1);
        const [r, g, b, a] = pen.getImageData(0, 0, 1, 1).data;
        if (a === 0 && !/transparent|\/ 0\)$/.test(resolved)) throw new Error(`unreadable colour ${css} → ${resolved}`);
        return [r, g, b, a / 255];
    };
    const over = (top, below) => {  // top [r,g,b,a] over an opaque below [r,g,b]
        const a = top[3];
        return [0, 1, 2].map((i) => top[i] * a + below[i] * (1 - a));
    };
    const mix = (a, b, t) => [0, 1, 2].map((i) => a[i] * t + b[i] * (1 - t));
    const channel = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    const luminance = (c) => 0.2126 * channel(c[0]) + 0.7152 * channel(c[1]) + 0.0722 * channel(c[2]);
    const ratio = (a, b) => { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    // The colours an element paints behind its content: its background colour over each stop of
    // its background gradients (a gradient's stops, each one possible under the text).
    const STOP = /color-mix\((?:[^()]|\([^()]*\))*\)|(?:rgba?|hsla?|color|oklch|oklab|lab|lch)\([^()]*\)|#[0-9a-f]{3,8}\b|\btransparent\b/gi;
    const layers = (style) => {
        const colour = parse(style.backgroundColor);
        const image = style.backgroundImage;
        const stops = image && image !== 'none' ? (image.match(STOP) || []).map(parse) : [];
        return {colour, stops};
    };
    const hex = (c) => '#' + c.slice(0, 3).map((v) => Math.round(v).toString(16).padStart(2, '0')).join('');
    const painted = (el) => {
        if (el.closest('svg')) return false;
        if (!el.checkVisibility({opacityProperty: true, visibilityProperty: true})) return false;
        const box = el.getBoundingClientRect();
        if (box.width <= 1 || box.height <= 1) return false;
        for (let node = el; node; node = node.parentElement) {
            const s = getComputedStyle(node);
            if (s.clip === 'rect(0px, 0px, 0px, 0px)' || s.clipPath === 'inset(50%)') return false;
            if (s.overflow === 'hidden' && node.getBoundingClientRect().width <= 1) return false;
        }
        return true;
    };
    const disabled = (el) => Boolean(el.closest(':disabled, [aria-disabled="true"]'));
    const describe = (el) => {
        const text = (el.matches('input, textarea, select') ? el.value : el.textContent).trim().replace(/\s+/g, ' ').slice(0, 40);
        const cls = typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\s+/).join('.') : '';
        return `${el.tagName.toLowerCase()}${cls} “${text}”`;
    };

    const root = document.querySelector(scope);
    if (!root) throw new Error(`nothing matches ${scope}`);
    const found = [];
    const candidates = [root, ...root.querySelectorAll('*')].filter((el) =>
        el.matches('input:not([type=checkbox]):not([type=radio]):not([type=range]):not([type=file]), textarea, select')
            ? el.value.trim() !== ''
            : [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim() !== ''));
    for (const el of candidates) {
        if (!painted(el) || disabled(el)) continue;
        const chain = [];
        for (let node = el; node; node = node.parentElement) chain.unshift(node);
        // Paint from the page's canvas (white) inward; each opacity group remembers what lay behind it.
        let behind = [[255, 255, 255]];
        const groups = [];
        for (const node of chain) {
            const s = getComputedStyle(node);
            const opacity = Number(s.opacity);
            if (opacity < 1) groups.push({opacity, under: behind});
            const {colour, stops} = layers(s);
            let next = behind.map((b) => over(colour, b));
            if (stops.length) next = next.flatMap((b) => stops.map((stop) => over(stop, b)));
            // Keep the list short: identical colours once.
            behind = [...new Map(next.map((c) => [hex(c), c])).values()];
        }
        const style = getComputedStyle(el);
        const ink = parse(style.color);
        let pairs = behind.map((b) => ({text: over(ink, b), back: b}));
        for (const group of groups.reverse()) {
            // Each group's under list lines up with the colours painted on it only when it has one
            // colour; otherwise every pairing is a possible place.
            pairs = pairs.flatMap((p) => group.under.map((u) => ({text: mix(p.text, u, group.opacity), back: mix(p.back, u, group.opacity)})));
        }
        const size = parseFloat(style.fontSize);
        const bold = Number(style.fontWeight) >= 700;
        const large = size >= 24 || (size >= 18.66 && bold);
        const need = large ? 3 : 4.5;
        let worst = null;
        for (const p of pairs) {
            const r = ratio(p.text, p.back);
            if (!worst || r < worst.ratio) worst = {ratio: r, text: hex(p.text), back: hex(p.back)};
        }
        found.push({element: describe(el), ratio: Math.round(worst.ratio * 100) / 100, text: worst.text, back: worst.back,
                    size: Math.round(size * 10) / 10, bold, need});
    }
    probe.remove();
    return found;
}"""


def measure(page, scope="body"):
    """Every painted text under `scope`: its element, worst ratio, colours, size and the ratio it needs."""
    return page.evaluate(MEASURE, scope)


def too_low(found):
    return [f"{m['element']}: {m['ratio']}:1 ({m['text']} on {m['back']}, {m['size']} px{' bold' if m['bold'] else ''}; needs {m['need']}:1)"
            for m in found if m["ratio"] < m["need"]]


def axe_contrast(page, scope="body"):
    """axe-core's color-contrast violations under `scope`, one line each."""
    results = Axe().run(page, context=scope, options={"runOnly": {"type": "rule", "values": ["color-contrast"]}})
    lines = []
    for violation in results.response["violations"]:
        for node in violation["nodes"]:
            data = next((check.get("data") for check in node["any"] if check.get("data")), {}) or {}
            lines.append(f"{' '.join(node['target'])}: {data.get('contrastRatio')}:1 ({data.get('fgColor')} on {data.get('bgColor')}, "
                         f"{data.get('fontSize')} {data.get('fontWeight')}; needs {data.get('expectedContrastRatio')})")
    return lines
