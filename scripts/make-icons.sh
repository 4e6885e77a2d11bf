#!/usr/bin/env bash
# Renders Web/icons/icon.svg (and the Plus icons, icon-<name>.svg) to the PNG icons the manifests
# list, with headless Chromium.
# Run after changing the SVG; the PNGs are committed (the server does not render them).
set -euo pipefail
cd "$(dirname "$0")/.."
chromium=${CHROMIUM:-/usr/bin/chromium}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
svg=$(cat Web/icons/icon.svg)

render() { # size, html, output
  printf '%s' "$2" > "$tmp/page.html"
  "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --default-background-color=00000000 \
    --window-size="$1,$1" --screenshot="$3" "file://$tmp/page.html" >/dev/null 2>&1
  echo "wrote $3"
}
plain() { echo "<html><body style='margin:0'><div style='width:$1px;height:$1px'>${svg/<svg /<svg width=\"$1\" height=\"$1\" }</div></body></html>"; }
# Maskable: full-bleed background, artwork inside the central 70% safe zone.
maskable() {
  local inner=$(( $1 * 70 / 100 )) pad=$(( $1 * 15 / 100 ))
  echo "<html><body style='margin:0;background:#07060f'><div style='padding:${pad}px'>${svg/<svg /<svg width=\"$inner\" height=\"$inner\" }</div></body></html>"
}

render 192 "$(plain 192)" Web/icons/icon-192.png
render 512 "$(plain 512)" Web/icons/icon-512.png
render 512 "$(maskable 512)" Web/icons/icon-maskable-512.png

# The Plus icons: 192 and 512 for a new install's manifest (GET /manifest.webmanifest?icon=…).
for name in lavender sunrise; do
  svg=$(cat "Web/icons/icon-$name.svg")
  render 192 "$(plain 192)" "Web/icons/icon-$name-192.png"
  render 512 "$(plain 512)" "Web/icons/icon-$name-512.png"
done
