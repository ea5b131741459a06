//! Token counting benchmark (a bench binary: single-shot timings of large inputs, which
//! criterion's repeated sampling would make far too slow).
//!
//! 0. The first count of each engine, in this fresh process: ours reads its rank table in place
//!    and compiles its pattern; `bpe-openai` and `tiktoken-rs` first decode their vocabulary.
//!    This is what a short command (one appended message re-indexed) waits for.
//! 1. Throughput on a generated transcript corpus (prose, code, JSON tool output, Unicode):
//!    ours vs bpe-openai vs tiktoken-rs `encode_ordinary`, one thread, MB/s. The corpus is
//!    written to `target/tokens-bench/corpus.jsonl` so `scripts/bench_tiktoken.py` measures
//!    Python tiktoken on the very same pieces (`scripts/bench-tokens.sh` runs both).
//! 2. A generated session of `TOKENS_BENCH_SESSION_MB` (default 200) MB counted cold (empty
//!    cache) and again with the cache filled: the reopen ratio.
//!
//! Run: `cargo bench -p palimpsest-core --bench tokens` (env TOKENS_BENCH_MB sets the corpus
//! size, default 16).

use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use palimpsest_core::model::{Message, Part, Role, Session, SourceFormat};
use palimpsest_core::tokens::{self, Encoding, TokenCache};
use serde_json::{Value, json};

/// A small deterministic generator (no dependency, same corpus every run).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[(self.next() as usize) % xs.len()]
    }
}

const WORDS: &[&str] = &[
    "the",
    "context",
    "window",
    "compaction",
    "summary",
    "tool",
    "result",
    "file",
    "request",
    "because",
    "token",
    "agent",
    "session",
    "déjà",
    "naïve",
    "東京",
    "données",
    "Москва",
    "🚀",
    "write",
    "error:",
    "warning",
    "function",
    "return",
    "value",
    "12345",
    "0.75",
    "users/",
];
const CODE: &[&str] = &[
    "fn count(text: &str) -> usize {\n    text.len() / 4\n}\n",
    "    for (i, line) in lines.iter().enumerate() {\n        out.push_str(line);\n    }\n",
    "def summarize(span):\n    return \"\\n\".join(m.text for m in span)\n",
    "const x = await fetch(`/api/${id}`); if (!x.ok) throw new Error(x.statusText);\n",
    "SELECT id, role, content FROM messages WHERE session_id = ? ORDER BY created_at;\n",
];

fn piece(rng: &mut Lcg, target: usize) -> String {
    let mut s = String::with_capacity(target + 64);
    while s.len() < target {
        match rng.next() % 4 {
            0 => s.push_str(rng.pick(CODE)),
            1 => {
                let v = json!({"stdout": format!("{} {}", rng.pick(WORDS), rng.next()), "exit_code": rng.next() % 3});
                s.push_str(&v.to_string());
                s.push('\n');
            }
            _ => {
                for _ in 0..12 {
                    s.push_str(rng.pick(WORDS));
                    s.push(' ');
                }
                s.push_str(".\n");
            }
        }
    }
    s
}

/// Pieces of 200 B to 40 KB, like a transcript's texts and tool results.
fn corpus(bytes: usize, seed: u64) -> Vec<String> {
    let mut rng = Lcg(seed);
    let mut out = Vec::new();
    let mut total = 0;
    while total < bytes {
        let size = [200, 800, 2_000, 6_000, 20_000, 40_000][(rng.next() % 6) as usize];
        let p = piece(&mut rng, size);
        total += p.len();
        out.push(p);
    }
    out
}

fn mb(bytes: usize, secs: f64) -> f64 {
    bytes as f64 / 1e6 / secs
}

/// How long `f` takes, in milliseconds, and what it gave.
fn ms<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let v = f();
    (v, t.elapsed().as_secs_f64() * 1e3)
}

fn main() {
    // First, before anything has loaded a vocabulary.
    let text = "one appended message: fn main() { println!(\"hello\"); }";
    let (a, ours) = ms(|| Encoding::O200kBase.count(text));
    let (b, bpe) = ms(|| bpe_openai::o200k_base().count(text) as u64);
    let (c, tik) = ms(|| {
        tiktoken_rs::o200k_base_singleton()
            .encode_ordinary(text)
            .len() as u64
    });
    assert!(
        a == b && b == c,
        "the three engines agree on the first text"
    );
    println!(
        "first o200k count in a fresh process: ours {ours:.1} ms | bpe-openai {bpe:.1} ms | tiktoken-rs {tik:.1} ms | ratio {:.2} of bpe-openai's",
        ours / bpe
    );

    let corpus_mb: usize = std::env::var("TOKENS_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16);
    let session_mb: usize = std::env::var("TOKENS_BENCH_SESSION_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let out_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/tokens-bench");
    std::fs::create_dir_all(out_dir).unwrap();

    let pieces = corpus(corpus_mb << 20, 7);
    let bytes: usize = pieces.iter().map(String::len).sum();
    let mut f =
        std::io::BufWriter::new(std::fs::File::create(format!("{out_dir}/corpus.jsonl")).unwrap());
    for p in &pieces {
        writeln!(f, "{}", Value::String(p.clone())).unwrap();
    }
    f.flush().unwrap();
    println!(
        "corpus: {} pieces, {bytes} bytes -> {out_dir}/corpus.jsonl",
        pieces.len()
    );

    for enc in Encoding::ALL {
        enc.warm_up();
        // Every piece counted by one engine: the total and the milliseconds it took.
        let all = |count: &dyn Fn(&str) -> u64| ms(|| pieces.iter().map(|p| count(p)).sum::<u64>());
        let other = match enc {
            Encoding::O200kBase => bpe_openai::o200k_base(),
            Encoding::Cl100kBase => bpe_openai::cl100k_base(),
        };
        let tik = match enc {
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        };
        let (ours, ours_ms) = all(&|p| enc.count(p));
        let (bpe, bpe_ms) = all(&|p| other.count(p) as u64);
        let (theirs, theirs_ms) = all(&|p| tik.encode_ordinary(p).len() as u64);
        assert_eq!(ours, theirs, "{enc}: ours and tiktoken-rs must agree");
        assert_eq!(ours, bpe, "{enc}: ours and bpe-openai must agree");
        println!(
            "{enc}: {ours} tokens | ours {:.1} MB/s | bpe-openai {:.1} MB/s | tiktoken-rs {:.1} MB/s | ratio {:.2}x bpe-openai, {:.2}x tiktoken-rs",
            mb(bytes, ours_ms / 1e3),
            mb(bytes, bpe_ms / 1e3),
            mb(bytes, theirs_ms / 1e3),
            bpe_ms / ours_ms,
            theirs_ms / ours_ms
        );
    }

    // The reopen benchmark: a session of `session_mb` MB counted cold, then with the cache.
    let texts = corpus(session_mb << 20, 11);
    let sbytes: usize = texts.iter().map(String::len).sum();
    let messages: Vec<Message> = texts
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            let role = if i % 2 == 0 {
                Role::User
            } else {
                Role::Assistant
            };
            Message::new(i, role, vec![Part::Text { text: t }])
        })
        .collect();
    let session = Session::in_memory("bench", SourceFormat::MessageLog, messages, Vec::new());
    let dir = tempfile::tempdir().unwrap();
    let no = AtomicBool::new(false);
    let t = Instant::now();
    let cache = TokenCache::open(dir.path()).unwrap();
    let cold = tokens::count_session(
        &session,
        Encoding::O200kBase,
        Some(&cache),
        &mut |_| {},
        &no,
    )
    .unwrap();
    let cold_s = t.elapsed().as_secs_f64();
    drop(cache);
    let t = Instant::now();
    let cache = TokenCache::open(dir.path()).unwrap();
    let warm = tokens::count_session(
        &session,
        Encoding::O200kBase,
        Some(&cache),
        &mut |_| {},
        &no,
    )
    .unwrap();
    let warm_s = t.elapsed().as_secs_f64();
    assert_eq!(cold.pieces, warm.pieces, "cached counts equal fresh ones");
    println!(
        "session {sbytes} bytes, {} parts: first count {cold_s:.2} s ({:.1} MB/s) | reopen with cache {warm_s:.3} s | ratio {:.1}x (hits {})",
        session.messages.len(),
        mb(sbytes, cold_s),
        cold_s / warm_s,
        warm.stats.cache_hits
    );
}
