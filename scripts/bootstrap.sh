#!/usr/bin/env bash
# Installs what Reverie needs and is missing, then returns. Safe to run again: it only acts on gaps.
#   scripts/bootstrap.sh run    system packages + .venv for running the server
#   scripts/bootstrap.sh test   the above + what the tests need (chromium, postgresql, pulseaudio, pytest, playwright)
#   scripts/bootstrap.sh front  run + nginx (make run-front, deploy/nginx)
#   scripts/bootstrap.sh bench  the above + what `make bench` compares with (wrk, nginx)
# System packages come from apt-get (Debian/Ubuntu); Python packages from PyPI into .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-run}
case "$mode" in run|front|test|bench) ;; *) echo "usage: $0 run|front|test|bench" >&2; exit 2 ;; esac

say() { printf '\033[1m==>\033[0m %s\n' "$*"; }

# MARK: - Swift
if ! command -v swift >/dev/null 2>&1; then
  echo "Swift 6 is not installed. Install the Swift toolchain for your system from the Swift project, then run this again." >&2
  exit 1
fi

# MARK: - System packages
packages=(ffmpeg espeak-ng libespeak-ng-dev libsqlite3-dev libxml2-dev zlib1g-dev pkg-config python3 python3-venv ca-certificates wamerican poppler-utils qrencode openssl curl)
[ "$mode" = test ] || [ "$mode" = bench ] && packages+=(chromium postgresql fonts-dejavu-core pulseaudio pulseaudio-utils libnss3-tools nginx-core python3-mygpoclient)
[ "$mode" = bench ] && packages+=(wrk)
[ "$mode" = front ] && packages+=(nginx-core)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
# A Python that ships its own venv (pyenv, a custom build) does not need Debian's python3-venv.
if [[ " ${missing[*]} " == *" python3-venv "* ]] && python3 -c 'import venv, ensurepip' 2>/dev/null; then
  missing=("${missing[@]/python3-venv}")
fi
read -r -a missing <<< "${missing[*]}"

if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "Please install these packages with your system's package manager: ${missing[*]}" >&2
    exit 1
  fi
  sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "Run as root or install sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  say "Installing system packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# MARK: - Python virtual environment
requirements=(scripts/requirements-run.txt)
[ "$mode" = test ] || [ "$mode" = bench ] && requirements+=(scripts/requirements-test.txt)
[ "$mode" = bench ] && requirements+=(scripts/requirements-bench.txt scripts/requirements-bench-2.txt)
if [ ! -x .venv/bin/python ]; then
  say "Creating .venv"
  python3 -m venv .venv
fi
for file in "${requirements[@]}"; do
  # One stamp per requirements file and content: edit a file and its packages are installed again.
  stamp=".venv/.installed-$(basename "$file" .txt)-$(sha256sum "$file" | cut -c1-16)"
  [ -f "$stamp" ] && continue
  say "Installing Python packages from $file into .venv"
  .venv/bin/python -m pip install -q --disable-pip-version-check -r "$file"
  rm -f .venv/.installed-"$(basename "$file" .txt)"-*
  touch "$stamp"
done

# The word list the Rhymes engine ranks suggestions by (from wordfreq, proper names last; made once).
ranks=".venv/share/reverie/word-ranks-v2.txt"
if [ ! -s "$ranks" ]; then
  say "Making the word-frequency list for rhymes"
  mkdir -p "$(dirname "$ranks")"
  .venv/bin/python scripts/make-word-ranks.py "$ranks.tmp" && mv "$ranks.tmp" "$ranks"
fi
