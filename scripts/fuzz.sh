#!/usr/bin/env bash
# libFuzzer harnesses for every parser of outside bytes (Fuzz/*Fuzz.swift), each built with the
# sources of the module it tests and `-sanitize=fuzzer,address`.
#   scripts/fuzz.sh run [SECONDS] [NAME...]   fuzz each harness for SECONDS (default 60), new finds saved
#   scripts/fuzz.sh replay [NAME...]          run every input of each corpus once (what `make test` does)
# Corpora: Fuzz/corpus/<name>/ (seeds we wrote, and every input that once crashed, kept as a
# regression). New interesting inputs from a run go to .build/fuzz/corpus/<name>/; a crash is
# written to .build/fuzz/crash-<name>-* and the run fails: copy it into Fuzz/corpus/<name>/ with the fix.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-run}; shift || true
seconds=60
if [ "$mode" = run ] && [[ "${1:-}" =~ ^[0-9]+$ ]]; then seconds=$1; shift; fi
swiftc=${SWIFTC:-swiftc}
out=.build/fuzz
# A harness that stops on fatalError ends there: Swift's backtracer, under ASan, was left running
# as an orphan (once for ten minutes).
export SWIFT_BACKTRACE=enable=no
mkdir -p "$out"

# harness name → module whose sources it is built with
declare -A module=([spoken-script]=SpokenScript [manifest]=Breathing [wav]=AudioRender [lyrics]=Rhymes [mp4]=MediaFormats [mp3]=MediaFormats [feed]=Feeds [transcript]=Feeds [opml]=Feeds [gpodder]=Feeds [extract]=Reader [epub]=Reader [text]=Reader [pdf]=Reader [audiobook]=Reader [media]=MediaFormats [backup]=Backups [hls]=MediaFormats [range]=MediaFormats [directory]=Directories)
declare -A file=([spoken-script]=SpokenScriptFuzz [manifest]=ManifestFuzz [wav]=WAVFuzz [lyrics]=LyricsFuzz [mp4]=MP4Fuzz [mp3]=MP3Fuzz [feed]=FeedFuzz [transcript]=TranscriptFuzz [opml]=OPMLFuzz [gpodder]=GpodderFuzz [extract]=ExtractFuzz [epub]=EPUBFuzz [text]=TextFuzz [pdf]=PDFFuzz [audiobook]=AudiobookFuzz [media]=MediaFileFuzz [backup]=BackupFuzz [hls]=HLSFuzz [range]=RangeFuzz [directory]=DirectoryFuzz)
# files from other modules a harness needs (its module imports them when built by SwiftPM)
# Reader (extract, epub, text, pdf, audiobook) is built with Feeds and Archives (zips, through
# zlib), which it imports, as one module; the audiobook harness adds MediaFormats, whose MP3Book
# joins the parts. Backups (backup) is built with Archives, ZIPFoundation (it writes zips with it)
# and Fuzz/SHA256.swift for swift-crypto's SHA256.
reader_shared="Fuzz/ArticleChecks.swift Sources/AudioRender/CommandRunner.swift Sources/AudioRender/AudioRenderError.swift $(echo Sources/Feeds/*.swift) $(echo Sources/Archives/*.swift)"
reader_clibs="-I Sources/CReverieXML -Xcc -I/usr/include/libxml2 -lxml2 -I Sources/CReverieZlib -lz -I $out/stubs"
declare -A shared=([directory]="$(echo Sources/Feeds/*.swift) $(echo Sources/ReverieAPI/*/*.swift Sources/ReverieAPI/*.swift 2>/dev/null)" [manifest]="Sources/AudioRender/SeededGenerator.swift" [lyrics]="$(echo Sources/Installation/*.swift)" [extract]="$reader_shared" [epub]="$reader_shared" [text]="$reader_shared" [pdf]="$reader_shared" [audiobook]="$reader_shared $(echo Sources/MediaFormats/*.swift)" [backup]="Fuzz/SHA256.swift $(echo Sources/Archives/*.swift) $(echo .build/checkouts/ZIPFoundation/Sources/ZIPFoundation/*.swift)")
# C libraries a harness's module uses (its system-library module map, compiler and linker flags)
declare -A clibs=([directory]="-I Sources/CReverieXML -Xcc -I/usr/include/libxml2 -lxml2 -I $out/stubs" [lyrics]="-I $out/stubs" [feed]="-I Sources/CReverieXML -Xcc -I/usr/include/libxml2 -lxml2" [transcript]="-I Sources/CReverieXML -Xcc -I/usr/include/libxml2 -lxml2" [opml]="-I Sources/CReverieXML -Xcc -I/usr/include/libxml2 -lxml2" [gpodder]="-I Sources/CReverieXML -Xcc -I/usr/include/libxml2 -lxml2" [extract]="$reader_clibs" [epub]="$reader_clibs" [text]="$reader_clibs" [pdf]="$reader_clibs" [audiobook]="$reader_clibs" [backup]="-I Sources/CReverieZlib -I .build/checkouts/ZIPFoundation/Sources/CZLib -Xcc -D_GNU_SOURCE=1 -lz -I $out/stubs")
# libFuzzer options of a harness (none needs its own now: the leak ZIPFoundation's reading had,
# a path from fileSystemRepresentation per archive, went with it).
declare -A options=()
declare -A asan=()
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(spoken-script manifest wav lyrics mp4 mp3 media hls range feed transcript opml gpodder directory extract epub text pdf audiobook backup)

# Reader's harnesses build Reader, Feeds and Archives as one module, the directory harness
# Directories with Feeds and ReverieAPI, the lyrics harness Rhymes
# with Installation, and the backup harness Backups with Archives, ZIPFoundation and our SHA256
# for Crypto: their imports of one another are met by empty modules of those names.
stubs() {
  mkdir -p "$out/stubs"
  [ -f "$out/stubs/Feeds.swiftmodule" ] && [ -f "$out/stubs/ZIPFoundation.swiftmodule" ] && [ -f "$out/stubs/Installation.swiftmodule" ] \
    && [ -f "$out/stubs/Crypto.swiftmodule" ] && [ -f "$out/stubs/Archives.swiftmodule" ] && [ -f "$out/stubs/ReverieAPI.swiftmodule" ] && return
  : > "$out/stubs/empty.swift"
  for stub in Feeds ZIPFoundation Installation Crypto Archives ReverieAPI; do
    $swiftc -emit-module -parse-as-library -module-name "$stub" "$out/stubs/empty.swift" -o "$out/stubs/$stub.swiftmodule"
  done
}

# A run is built optimized, for inputs per second; a replay, which runs each input once, without
# optimization (the same checks, ASan's included; it builds about N times faster).
opt=-O binaries=$out
[ "$mode" = replay ] && opt=-Onone binaries=$out/replay
mkdir -p "$binaries"

build() {
  local name=$1 binary="$binaries/$1"
  case "${module[$name]}" in Reader|Rhymes|Backups|Directories) stubs ;; esac
  local sources=(Fuzz/"${file[$name]}".swift Sources/"${module[$name]}"/*.swift ${shared[$name]:-})
  # Rebuild only when a source is newer than the harness.
  if [ -x "$binary" ] && [ -z "$(find "${sources[@]}" -newer "$binary" 2>/dev/null | head -1)" ]; then return; fi
  local extra=()
  # Modules with resources use SwiftPM's Bundle.module; the harness reads no resource.
  if grep -q "Bundle.module" Sources/"${module[$name]}"/*.swift; then
    printf 'import Foundation\nextension Bundle { static let module = Bundle.main }\n' > "$out/bundle-$name.swift"
    extra=("$out/bundle-$name.swift")
  fi
  echo "building fuzz harness $name (${module[$name]})"
  # (gold warns about every sanitizer symbol it cannot export; the log keeps them, errors are shown)
  if ! $swiftc -sanitize=fuzzer,address -parse-as-library $opt -g -module-name "${module[$name]}" \
      ${clibs[$name]:-} "${sources[@]}" "${extra[@]}" -o "$binary" > "$out/build-$name.log" 2>&1; then
    grep -v "Cannot export local symbol" "$out/build-$name.log" >&2; return 1
  fi
}

status=0
for name in "${names[@]}"; do
  [ -n "${module[$name]:-}" ] || { echo "no harness called $name; there are: ${!module[*]}" >&2; exit 2; }
done
# A replay builds its harnesses first, two at a time (each build keeps one core busy).
if [ "$mode" = replay ]; then
  case " ${names[*]} " in *" extract "*|*" epub "*|*" text "*|*" pdf "*|*" audiobook "*|*" lyrics "*|*" backup "*|*" directory "*) stubs ;; esac
  for name in "${names[@]}"; do
    build "$name" &
    if [ "$(jobs -rp | wc -l)" -ge 2 ]; then wait -n || status=1; fi
  done
  while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || status=1; done
  [ $status = 0 ] || { echo "a fuzz harness did not build" >&2; exit 1; }
fi
for name in "${names[@]}"; do
  build "$name"
  corpus=Fuzz/corpus/$name
  export REVERIE_FUZZ_CACHE="$PWD/$out/cache-$name"
  mkdir -p "$REVERIE_FUZZ_CACHE"
  case "$mode" in
    replay)
      inputs=("$corpus"/*)
      # -timeout is per input, in seconds: a replay on a busy shared machine can stall for most of
      # a minute, and a hang still fails, only later.
      if ! ASAN_OPTIONS="${asan[$name]:-}" "$binaries/$name" -timeout=60 -rss_limit_mb=4096 ${options[$name]:-} "${inputs[@]}" > "$out/replay-$name.log" 2>&1; then
        echo "fuzz corpus $name: FAILED (see $out/replay-$name.log)"; tail -40 "$out/replay-$name.log"; status=1
      else
        echo "fuzz corpus $name: ${#inputs[@]} inputs, no crash"
      fi
      ;;
    run)
      mkdir -p "$out/corpus/$name"
      echo "fuzzing $name for ${seconds}s"
      if ! ASAN_OPTIONS="${asan[$name]:-}" "$out/$name" "$out/corpus/$name" "$corpus" -max_total_time="$seconds" -timeout=10 -max_len=65536 ${options[$name]:-} \
           -rss_limit_mb=4096 -artifact_prefix="$out/crash-$name-" -print_final_stats=1 2> "$out/run-$name.log"; then
        echo "fuzz $name: found a crash (see $out/run-$name.log and $out/crash-$name-*)"; tail -40 "$out/run-$name.log"; status=1
      else
        grep -E "^stat::number_of_executed_units|^stat::new_units_added" "$out/run-$name.log" | sed "s/^/  $name /"
      fi
      ;;
    *) echo "usage: $0 run [SECONDS] [NAME...] | replay [NAME...]" >&2; exit 2 ;;
  esac
done
exit $status
