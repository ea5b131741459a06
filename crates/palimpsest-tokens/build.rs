//! Writes the rank tables token counting reads in place (`src/table.rs` says why and how they
//! are laid out), from the vocabularies `bpe-openai` embeds: the same rank files as OpenAI's
//! tiktoken.

#[path = "src/table.rs"]
mod table;

fn main() {
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    for (name, tokenizer) in [
        ("o200k_base", bpe_openai::o200k_base()),
        ("cl100k_base", bpe_openai::cl100k_base()),
    ] {
        let bpe = &tokenizer.bpe;
        let tokens: Vec<&[u8]> = (0..bpe.num_tokens())
            .map(|id| bpe.token_bytes(id as u32))
            .collect();
        let path = out.join(format!("{name}.ranks"));
        std::fs::write(&path, table::write(&tokens))
            .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    }
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/table.rs");
}
