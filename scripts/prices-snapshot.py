#!/usr/bin/env python3
"""Write the price table Palimpsest ships (crates/palimpsest-analysis/data/prices.json) from the
copy of LiteLLM's model_prices_and_context_window.json inside a `litellm` wheel, with its
licence beside it (PRICES-LICENSE). Only token prices of chat models are kept: per-token
input, output, cache read and cache write, and the long-context tiers.

    python3 scripts/prices-snapshot.py [WHEEL]   # without WHEEL: `pip download litellm`
"""
import datetime, glob, json, os, subprocess, sys, tempfile, zipfile

OUT = os.path.join(os.path.dirname(__file__), "..", "crates", "palimpsest-analysis", "data")
FIELDS = {
    "input_cost_per_token": "input",
    "output_cost_per_token": "output",
    "cache_read_input_token_cost": "cache_read",
    "cache_creation_input_token_cost": "cache_write",
    "cache_creation_input_token_cost_above_1hr": "cache_write_1h",
    "input_cost_per_token_above_200k_tokens": "input_above_200k",
    "output_cost_per_token_above_200k_tokens": "output_above_200k",
    "cache_read_input_token_cost_above_200k_tokens": "cache_read_above_200k",
    "cache_creation_input_token_cost_above_200k_tokens": "cache_write_above_200k",
    "input_cost_per_token_above_272k_tokens": "input_above_272k",
    "output_cost_per_token_above_272k_tokens": "output_above_272k",
    "cache_read_input_token_cost_above_272k_tokens": "cache_read_above_272k",
}


def main():
    if len(sys.argv) > 1:
        wheel = sys.argv[1]
    else:
        d = tempfile.mkdtemp()
        subprocess.check_call([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", d, "litellm"])
        wheel = glob.glob(os.path.join(d, "litellm-*.whl"))[0]
    version = os.path.basename(wheel).split("-")[1]
    with zipfile.ZipFile(wheel) as z:
        table = json.loads(z.read("litellm/model_prices_and_context_window_backup.json"))
        licence = next(n for n in z.namelist() if n.endswith(".dist-info/licenses/LICENSE"))
        licence = z.read(licence).decode()
    models = {}
    for name, entry in sorted(table.items()):
        if not isinstance(entry, dict) or entry.get("mode") not in ("chat", "responses", "completion"):
            continue
        price = {short: entry[k] for k, short in FIELDS.items() if isinstance(entry.get(k), (int, float))}
        if "input" in price and "output" in price:
            models[name] = price
    snapshot = {
        "source": "LiteLLM model_prices_and_context_window.json, from the litellm %s wheel on PyPI" % version,
        "date": datetime.date.today().isoformat(),
        "unit": "USD per token",
        "models": models,
    }
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "prices.json"), "w") as f:
        json.dump(snapshot, f, indent=0, sort_keys=True)
        f.write("\n")
    with open(os.path.join(OUT, "PRICES-LICENSE"), "w") as f:
        f.write("crates/palimpsest-analysis/data/prices.json is derived from LiteLLM's\n")
        f.write("model_prices_and_context_window.json (litellm %s), under this licence:\n\n" % version)
        f.write(licence)
    print("%d models written (litellm %s)" % (len(models), version))


if __name__ == "__main__":
    main()
