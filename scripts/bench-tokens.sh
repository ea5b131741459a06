#!/usr/bin/env bash
# Token counting benchmark, side by side: our engine, bpe-openai and tiktoken-rs from the Rust
# bench, then Python tiktoken (encode_ordinary, one thread) on the same corpus, offline.
# The Python venv lives under target/ so the system is untouched.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench -p palimpsest-core --bench tokens
VENV=target/tokens-bench/venv
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -c "import tiktoken" 2>/dev/null || "$VENV/bin/pip" install --quiet tiktoken
"$VENV/bin/python" scripts/bench_tiktoken.py target/tokens-bench/corpus.jsonl
