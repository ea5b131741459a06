"""Python tiktoken's counting throughput on the corpus `benches/tokens.rs` wrote, one thread,
offline: tiktoken's cache is seeded with the vocabulary files tiktoken-rs ships (named by the
sha1 of tiktoken's download URL), so nothing is fetched.

Usage: python scripts/bench_tiktoken.py target/tokens-bench/corpus.jsonl
"""

import glob
import json
import os
import shutil
import sys
import time

# sha1 of the blob URL tiktoken_ext/openai_public.py downloads from; tiktoken looks these up
# in TIKTOKEN_CACHE_DIR before touching the network.
CACHE_KEYS = {
    "cl100k_base": "9b5ad71b2ce5302211f9c61530b329a4922fc6a4",
    "o200k_base": "fb374d419588a4632f3f557e76b4b70aebbca790",
}


def seed_cache(cache_dir):
    roots = glob.glob(os.path.expanduser("~/.cargo/registry/src/*/tiktoken-rs-*/assets"))
    if not roots:
        sys.exit("tiktoken-rs sources not found in ~/.cargo/registry (run cargo bench first)")
    os.makedirs(cache_dir, exist_ok=True)
    for name, key in CACHE_KEYS.items():
        dst = os.path.join(cache_dir, key)
        if not os.path.exists(dst):
            shutil.copyfile(os.path.join(sorted(roots)[-1], name + ".tiktoken"), dst)
    os.environ["TIKTOKEN_CACHE_DIR"] = cache_dir


def main():
    corpus_path = sys.argv[1] if len(sys.argv) > 1 else "target/tokens-bench/corpus.jsonl"
    seed_cache(os.path.join(os.path.dirname(corpus_path), "tiktoken-cache"))
    import tiktoken

    with open(corpus_path, encoding="utf-8") as f:
        pieces = [json.loads(line) for line in f]
    size = sum(len(p.encode("utf-8")) for p in pieces)
    for name in ("o200k_base", "cl100k_base"):
        enc = tiktoken.get_encoding(name)
        enc.encode_ordinary("warm up")
        start = time.perf_counter()
        tokens = sum(len(enc.encode_ordinary(p)) for p in pieces)
        secs = time.perf_counter() - start
        print(f"python tiktoken {tiktoken.__version__} {name}: {tokens} tokens | {size / 1e6 / secs:.1f} MB/s")


if __name__ == "__main__":
    main()
