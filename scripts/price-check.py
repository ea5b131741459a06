#!/usr/bin/env python3
"""Price Claude Code transcripts straight from their JSONL, as a check on `palimpsest cost`.

One request per API response (`message.id`); each usage figure is the largest the response's
lines carry (Claude Code 2.1 writes one line per content block and only the last has the final
`output_tokens`). Prices come from the table Palimpsest ships (crates/palimpsest-analysis/data/
prices.json): fresh input, output, cache reads, 5-minute and 1-hour cache writes, the 200k tier.

    scripts/price-check.py fixtures/real/claude-code/*.jsonl
"""
import json
import os
import sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates", "palimpsest-analysis",
                     "data", "prices.json")


def rates(p, prompt):
    i, o = p["input"], p["output"]
    r, w = p.get("cache_read", i), p.get("cache_write", i)
    w1 = p.get("cache_write_1h", w)
    if prompt > 200_000:
        i, o = p.get("input_above_200k", i), p.get("output_above_200k", o)
        r, w = p.get("cache_read_above_200k", r), p.get("cache_write_above_200k", w)
    return i, o, r, w, w1


def largest(acc, usage):
    for k, v in usage.items():
        if isinstance(v, dict):
            largest(acc.setdefault(k, {}), v)
        elif isinstance(v, (int, float)):
            acc[k] = max(acc.get(k, 0), v)


def price(path, prices):
    responses = {}
    for line in open(path, encoding="utf-8"):
        try:
            v = json.loads(line)
        except ValueError:
            continue
        m = v.get("message") if v.get("type") == "assistant" else None
        if not m or not m.get("usage"):
            continue
        key = m.get("id") or v.get("uuid")
        model, acc = responses.setdefault(key, (m.get("model"), {}))
        largest(acc, m["usage"])
    total, n = 0.0, 0
    for model, u in responses.values():
        fresh, out = u.get("input_tokens", 0), u.get("output_tokens", 0)
        read, write = u.get("cache_read_input_tokens", 0), u.get("cache_creation_input_tokens", 0)
        write_1h = min(u.get("cache_creation", {}).get("ephemeral_1h_input_tokens", 0), write)
        if fresh + read + write + out == 0:
            continue  # the `<synthetic>` error turns
        i, o, r, w, w1 = rates(prices[model], fresh + read + write)
        total += fresh * i + out * o + read * r + (write - write_1h) * w + write_1h * w1
        n += 1
    return n, total


def main():
    prices = json.load(open(TABLE))["models"]
    for path in sys.argv[1:]:
        n, usd = price(path, prices)
        print(f"{path}\t{n} requests\t${usd:.9f}")


if __name__ == "__main__":
    main()
