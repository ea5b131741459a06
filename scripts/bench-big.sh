#!/usr/bin/env bash
# Whole commands on big transcripts of two shapes, as a user runs them: the repeated real
# transcript (`palimpsest-big FROM OUT MB`) and a generated one with many distinct files and
# results (`palimpsest-big --distinct OUT MB`). Prints one line per command and shape: wall
# seconds and peak resident memory (GNU time), and the memory as a share of the file.
#
#   cargo build --release -p palimpsest-cli -p palimpsest-fixtures --bins
#   scripts/bench-big.sh [MB] [WORK_DIR]         # default 285 MB in /tmp/palimpsest-bench
#
# Each shape gets a cache of its own (XDG_CACHE_HOME), so the index starts empty. docs/
# PERFORMANCE.md quotes these figures.
set -euo pipefail
cd "$(dirname "$0")/.."
MB=${1:-285}
WORK=${2:-/tmp/palimpsest-bench}
BIN=${CARGO_TARGET_DIR:-target}/release
REAL=fixtures/real/claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl
[ -x "$BIN/palimpsest" ] && [ -x "$BIN/palimpsest-big" ] || {
  echo "build first: cargo build --release -p palimpsest-cli -p palimpsest-fixtures --bins" >&2
  exit 2
}
mkdir -p "$WORK"

# time_it LABEL FILE CMD...: run CMD once, print wall s, peak MiB and peak / file size.
time_it() {
  local label=$1 file=$2
  shift 2
  local stats="$WORK/time.txt" out
  /usr/bin/time -o "$stats" -f '%e %M' "$@" >/dev/null 2>&1 || true
  out=$(tail -1 "$stats")
  local wall=${out% *} kb=${out#* }
  local size
  size=$(stat -c %s "$file")
  awk -v l="$label" -v w="$wall" -v k="$kb" -v s="$size" \
    'BEGIN { printf "%-44s %7.2f s %8.1f MiB  %.2f x the file\n", l, w, k / 1024, k * 1024 / s }'
}

# A line as Claude Code appends it: a user message chained after the file's last line.
append_one() {
  python3 - "$1" <<'EOF'
import json, sys, uuid
path = sys.argv[1]
with open(path, "rb") as f:
    f.seek(-min(1 << 20, f.seek(0, 2)), 2)
    last = json.loads(f.read().splitlines()[-1])
line = dict(last, type="user", uuid=str(uuid.uuid4()), parentUuid=last.get("uuid"),
            message={"role": "user", "content": "one more appended line"})
for k in ("toolUseResult", "isCompactSummary", "subtype", "compactMetadata", "microcompactMetadata"):
    line.pop(k, None)
with open(path, "a") as f:
    f.write(json.dumps(line) + "\n")
EOF
}

for shape in repeated distinct; do
  dir="$WORK/$shape"
  rm -rf "$dir" && mkdir -p "$dir/cache"
  if [ "$shape" = repeated ]; then
    F="$dir/$(basename "$REAL")"
    "$BIN/palimpsest-big" "$REAL" "$F" "$MB" >/dev/null
  else
    F="$dir/d1571c70-0000-4000-8000-000000000001.jsonl"
    "$BIN/palimpsest-big" --distinct "$F" "$MB" >/dev/null
  fi
  export XDG_CACHE_HOME="$dir/cache"
  echo "== $shape: $(du -m "$F" | cut -f1) MB"
  time_it "show F --no-index --json" "$F" "$BIN/palimpsest" show "$F" --no-index --json
  time_it "diagnose F --no-index --json" "$F" "$BIN/palimpsest" diagnose "$F" --no-index --json
  time_it "index F (first)" "$F" "$BIN/palimpsest" index "$F"
  echo "   index on disk: $(du -sm "$XDG_CACHE_HOME/palimpsest" | cut -f1) MiB"
  for n in 1 2 3; do
    append_one "$F"
    time_it "index F after one appended line ($n)" "$F" "$BIN/palimpsest" index "$F"
  done
  echo "   index and kept readers on disk: $(du -sm "$XDG_CACHE_HOME/palimpsest" | cut -f1) MiB"
  time_it "show F --json (indexed)" "$F" "$BIN/palimpsest" show "$F" --json
  time_it "diagnose F --json (indexed)" "$F" "$BIN/palimpsest" diagnose "$F" --json
  time_it "tokens F --json (indexed)" "$F" "$BIN/palimpsest" tokens "$F" --json
  time_it "compactions F --json (indexed)" "$F" "$BIN/palimpsest" compactions "$F" --json
done
