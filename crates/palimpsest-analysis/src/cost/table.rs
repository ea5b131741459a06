//! The price table: the shipped snapshot of LiteLLM's public price list (`data/prices.json`,
//! made by `scripts/prices-snapshot.py`, licence in `data/PRICES-LICENSE`) and a user file laid
//! over it model by model (`--prices FILE`, or `prices.json` in the config dir), in our shape or
//! in LiteLLM's own. Looking a model up is exact: no nearest match, never a guess.
//! Pricing requests with it is `super`'s.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};

/// Dollars per token of one model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Price {
    /// Fresh input.
    pub input: f64,
    /// Output (reasoning included).
    pub output: f64,
    /// Cache reads; input's price when the table has none.
    #[serde(default)]
    pub cache_read: Option<f64>,
    /// Cache writes (5-minute); input's price when the table has none.
    #[serde(default)]
    pub cache_write: Option<f64>,
    /// 1-hour cache writes.
    #[serde(default)]
    pub cache_write_1h: Option<f64>,
    /// Long-context tier: prices when the prompt is over 200k tokens.
    #[serde(default)]
    pub input_above_200k: Option<f64>,
    #[serde(default)]
    #[allow(missing_docs)]
    pub output_above_200k: Option<f64>,
    #[serde(default)]
    #[allow(missing_docs)]
    pub cache_read_above_200k: Option<f64>,
    #[serde(default)]
    #[allow(missing_docs)]
    pub cache_write_above_200k: Option<f64>,
    /// Long-context tier: prices when the prompt is over 272k tokens.
    #[serde(default)]
    pub input_above_272k: Option<f64>,
    #[serde(default)]
    #[allow(missing_docs)]
    pub output_above_272k: Option<f64>,
    #[serde(default)]
    #[allow(missing_docs)]
    pub cache_read_above_272k: Option<f64>,
}

/// A price table: where it came from, its date, and its models.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PriceTable {
    /// Where the prices come from.
    pub source: String,
    /// The snapshot's date (`YYYY-MM-DD`).
    pub date: String,
    /// Model name → price.
    pub models: HashMap<String, Price>,
}

const BUNDLED: &str = include_str!("../../data/prices.json");

static BUNDLED_TABLE: LazyLock<PriceTable> =
    LazyLock::new(|| serde_json::from_str(BUNDLED).expect("bundled price table parses"));

/// LiteLLM's field names, for user files in its shape.
const LITELLM: &[(&str, &str)] = &[
    ("input_cost_per_token", "input"),
    ("output_cost_per_token", "output"),
    ("cache_read_input_token_cost", "cache_read"),
    ("cache_creation_input_token_cost", "cache_write"),
    (
        "cache_creation_input_token_cost_above_1hr",
        "cache_write_1h",
    ),
    ("input_cost_per_token_above_200k_tokens", "input_above_200k"),
    (
        "output_cost_per_token_above_200k_tokens",
        "output_above_200k",
    ),
    (
        "cache_read_input_token_cost_above_200k_tokens",
        "cache_read_above_200k",
    ),
    (
        "cache_creation_input_token_cost_above_200k_tokens",
        "cache_write_above_200k",
    ),
    ("input_cost_per_token_above_272k_tokens", "input_above_272k"),
    (
        "output_cost_per_token_above_272k_tokens",
        "output_above_272k",
    ),
    (
        "cache_read_input_token_cost_above_272k_tokens",
        "cache_read_above_272k",
    ),
];

impl PriceTable {
    /// The shipped snapshot.
    pub fn bundled() -> &'static PriceTable {
        &BUNDLED_TABLE
    }

    /// The user's override file in the config dir (`$XDG_CONFIG_HOME/palimpsest/prices.json`).
    pub fn user_file() -> Option<PathBuf> {
        crate::env::machine()
            .config_dir
            .as_ref()
            .map(|d| d.join("prices.json"))
    }

    /// The table to use: the snapshot, with `file` (or, without one, the user's file when it
    /// exists) laid over it model by model.
    pub fn load(file: Option<&Path>) -> Result<PriceTable> {
        let mut table = Self::bundled().clone();
        let user = match file {
            Some(f) => Some(f.to_owned()),
            None => Self::user_file().filter(|f| f.is_file()),
        };
        if let Some(f) = user {
            let over = Self::read(&f)?;
            table.source = format!("{} (overridden by {})", table.source, f.display());
            table.date = over.date.clone();
            table.models.extend(over.models);
        }
        Ok(table)
    }

    /// Read a table in our shape (`{"models": {name: {input, output, …}}}`) or LiteLLM's
    /// (`{name: {input_cost_per_token, …}}`).
    pub fn read(path: &Path) -> Result<PriceTable> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let v: Value = serde_json::from_str(&text)
            .map_err(|e| Error::format(path, format!("is not a price table: {e}")))?;
        if v.get("models").is_some_and(Value::is_object) {
            return serde_json::from_value(v)
                .map_err(|e| Error::format(path, format!("is not a price table: {e}")));
        }
        let Some(obj) = v.as_object() else {
            return Err(Error::format(path, "is not a price table: not an object"));
        };
        let mut models = HashMap::new();
        for (name, entry) in obj {
            let mut p = serde_json::Map::new();
            for (long, short) in LITELLM {
                if let Some(x) = entry.get(*long).filter(|x| x.is_number()) {
                    p.insert((*short).to_owned(), x.clone());
                }
            }
            if p.contains_key("input") && p.contains_key("output") {
                let price: Price = serde_json::from_value(Value::Object(p))
                    .map_err(|e| Error::format(path, format!("model `{name}`: {e}")))?;
                models.insert(name.clone(), price);
            }
        }
        let date = std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .map(|t| {
                chrono::DateTime::<chrono::Utc>::from(t)
                    .format("%Y-%m-%d")
                    .to_string()
            })
            .unwrap_or_default();
        Ok(PriceTable {
            source: path.display().to_string(),
            date,
            models,
        })
    }

    /// The price of `model`: its exact name, or the name behind its provider's prefix
    /// (`anthropic/…`, `openai/…`, `gemini/…`). Nothing else: no nearest match.
    pub fn price(&self, model: &str) -> Option<&Price> {
        self.models.get(model).or_else(|| {
            [
                "anthropic/",
                "openai/",
                "gemini/",
                "xai/",
                "deepseek/",
                "mistral/",
            ]
            .iter()
            .find_map(|p| self.models.get(&format!("{p}{model}")))
        })
    }
}
