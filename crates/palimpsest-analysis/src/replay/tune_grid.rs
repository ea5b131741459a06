//! The grid a fleet is tuned over, from the words `tune --grid` and the window's Tune view take
//! (`K=0..8 cap=0,30000`): every combination of the values named, or the policy's own grid when
//! none is named. Measuring each setting is `tune`'s; the CLI and the app only pass the words.

use super::options::PolicyName;
use super::tune::Setting;

/// The grid `tune` runs for `policy` when none is named.
pub fn default_words(policy: PolicyName) -> Vec<String> {
    let w = match policy {
        PolicyName::Goose | PolicyName::OpenCode => "K=0..8",
        PolicyName::Coworker => "trigger=100000,150000,200000,250000",
        PolicyName::Gemini => "preserve=10,20,30,40,50,60,70",
    };
    vec![w.to_owned()]
}

/// The values of `A..B` (both ends kept) or `a,b,c`.
pub fn values(s: &str) -> Result<Vec<u64>, String> {
    if let Some((a, b)) = s.split_once("..") {
        let num = |x: &str| {
            x.trim()
                .trim_start_matches('=')
                .parse::<u64>()
                .map_err(|_| format!("not a number: {x}"))
        };
        let (a, b) = (num(a)?, num(b)?);
        if a > b {
            return Err(format!("empty range {s}"));
        }
        return Ok((a..=b).collect());
    }
    s.split(',')
        .map(|x| {
            x.trim()
                .parse::<u64>()
                .map_err(|_| format!("not a number: {x}"))
        })
        .collect()
}

/// The settings of `words` (every combination, the first word's values slowest), or
/// `policy`'s default grid when there are none. The error names the word at fault.
pub fn grid(policy: PolicyName, words: &[String]) -> Result<Vec<Setting>, String> {
    let default = default_words(policy);
    let words = if words.is_empty() { &default } else { words };
    let mut settings = vec![Setting::default()];
    for w in words {
        let (name, list) = w
            .split_once('=')
            .ok_or_else(|| format!("--grid {w}: expected NAME=VALUES, e.g. K=0..8"))?;
        let list = values(list).map_err(|e| format!("--grid {w}: {e}"))?;
        let set: fn(&mut Setting, u64) = match name {
            "K" | "k" | "keep-tail" => |s, v| s.keep_tail = Some(v as usize),
            "cap" | "tool-result-cap" => |s, v| s.tool_result_cap = Some(v as usize),
            "trigger" | "trigger-cap" => |s, v| s.trigger_cap = Some(v),
            "budget" => |s, v| s.budget = Some(v),
            "preserve" | "preserve-percent" => |s, v| s.preserve_percent = Some(v as usize),
            other => {
                return Err(format!(
                    "--grid {other}: not a knob (K, cap, trigger, budget, preserve)"
                ));
            }
        };
        if name.starts_with("preserve") && list.iter().any(|&p| p == 0 || p >= 100) {
            return Err(format!(
                "--grid {w}: each value keeps between 1 and 99 % of the history"
            ));
        }
        settings = settings
            .into_iter()
            .flat_map(|s| {
                list.iter().map(move |&v| {
                    let mut s = s.clone();
                    set(&mut s, v);
                    s
                })
            })
            .collect();
    }
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_combination_the_first_word_slowest() {
        let g = grid(PolicyName::Goose, &["K=2..3".into(), "cap=0,500".into()]).unwrap();
        let labels: Vec<String> = g.iter().map(Setting::label).collect();
        assert_eq!(
            labels,
            ["K=2 cap=0", "K=2 cap=500", "K=3 cap=0", "K=3 cap=500"]
        );
        assert_eq!(grid(PolicyName::Goose, &[]).unwrap().len(), 9);
        assert_eq!(grid(PolicyName::Gemini, &[]).unwrap().len(), 7);
    }

    #[test]
    fn a_bad_word_is_named() {
        assert_eq!(
            grid(PolicyName::Goose, &["K=5..2".into()]).unwrap_err(),
            "--grid K=5..2: empty range 5..2"
        );
        assert_eq!(
            grid(PolicyName::Goose, &["speed=1".into()]).unwrap_err(),
            "--grid speed: not a knob (K, cap, trigger, budget, preserve)"
        );
        assert_eq!(
            grid(PolicyName::Gemini, &["preserve=0,50".into()]).unwrap_err(),
            "--grid preserve=0,50: each value keeps between 1 and 99 % of the history"
        );
        assert_eq!(
            grid(PolicyName::Goose, &["K".into()]).unwrap_err(),
            "--grid K: expected NAME=VALUES, e.g. K=0..8"
        );
        assert_eq!(values("1,x").unwrap_err(), "not a number: x");
    }
}
