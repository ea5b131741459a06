//! Token totals per [`Category`]: one field per category ([`CategoryCounts`], for requests) and
//! a list with shares ([`CategoryTotals`], for the final context and the processed total).
//! Plain data the report fills; what goes in which category is `category`'s call.

use serde::{Deserialize, Serialize};

use super::Category;

/// Tokens per category, one field per category (the JSON names of [`Category`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[allow(missing_docs)]
pub struct CategoryCounts {
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub system: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub user_text: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub assistant_text: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub thinking: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tool_call_arguments: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub file_writes: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub edits: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tool_results: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub summaries: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub other: u64,
}

impl CategoryCounts {
    /// From counts indexed by [`Category`] position.
    pub fn from_array(a: &[u64; 10]) -> Self {
        CategoryCounts {
            system: a[0],
            user_text: a[1],
            assistant_text: a[2],
            thinking: a[3],
            tool_call_arguments: a[4],
            file_writes: a[5],
            edits: a[6],
            tool_results: a[7],
            summaries: a[8],
            other: a[9],
        }
    }

    /// Tokens of one category.
    pub fn get(&self, c: Category) -> u64 {
        [
            self.system,
            self.user_text,
            self.assistant_text,
            self.thinking,
            self.tool_call_arguments,
            self.file_writes,
            self.edits,
            self.tool_results,
            self.summaries,
            self.other,
        ][c.index()]
    }
}

/// One category's share of a total.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CategoryShare {
    /// The category's JSON name (`tool_results`, ...).
    pub name: String,
    /// Tokens.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tokens: u64,
    /// Fraction of the total, 0..=1.
    pub share: f64,
}

/// A total split by category (every category listed, in [`Category::ALL`] order).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CategoryTotals {
    /// Tokens in all.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub total: u64,
    /// The split.
    pub categories: Vec<CategoryShare>,
}

impl CategoryTotals {
    /// From counts indexed by [`Category`] position.
    pub fn from_array(a: &[u64; 10]) -> Self {
        let total: u64 = a.iter().sum();
        CategoryTotals {
            total,
            categories: Category::ALL
                .iter()
                .map(|c| CategoryShare {
                    name: c.as_str().to_owned(),
                    tokens: a[c.index()],
                    share: if total == 0 {
                        0.0
                    } else {
                        a[c.index()] as f64 / total as f64
                    },
                })
                .collect(),
        }
    }

    /// Tokens of one category.
    pub fn tokens(&self, c: Category) -> u64 {
        self.categories
            .iter()
            .find(|s| s.name == c.as_str())
            .map_or(0, |s| s.tokens)
    }
}
