//! Packing of [`CompactJson`](super::CompactJson) texts: zstd with a dictionary of the shapes
//! readers write.
//!
//! A message's details are a few hundred bytes each (Claude Code: line numbers, byte offsets,
//! the usage object, ids), too short for zstd to find much to reuse within one of them: alone
//! they shrink by a quarter. Most of their bytes are keys and values every message repeats
//! (`"cache_creation_input_tokens"`, `"service_tier":"standard"`, the note that stands in
//! for an oversized `toolUseResult`); a tool call's short arguments are the same few keys
//! (`{"command":…,"description":…}`). So each is packed against [`DICTIONARY`], raw text
//! zstd matches against as if it came just before: they then shrink to about two fifths. What
//! is not in it (ids, numbers) is packed as before, so a format that writes other keys still
//! reads back exactly, only less packed. Which texts are packed is the type's business.

use std::cell::RefCell;

/// What packed texts are matched against: the keys and constant values each reader writes,
/// as they appear in its details and stored blocks. zstd reaches the end of it soonest, so the
/// most frequent shapes (Claude Code's, the longest sessions') come last.
const DICTIONARY: &str = concat!(
    // goose message metadata and message-log sidecars.
    r#"{"userVisible":true,"agentVisible":false}{"type":"text","text":""}"#,
    r#"{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0,"prompt_tokens_details":{"cached_tokens":0}}"#,
    // Codex: the turn's usage and the ones it stands for.
    r#"{"role":"assistant","model":"gpt-5-codex","last_token_usage":{"input_tokens":0,"cached_input_tokens":0,"output_tokens":0,"reasoning_output_tokens":0,"total_tokens":0},"more_token_usage":[]}"#,
    // Claude Code: flags the reader and its passes set.
    r#"{"isMeta":true,"permissionMode":"bypassPermissions","sidechain":true,"microcompacted":[],"replaced":[],"collapsed":true,"logical_parent":{"uuid":"","found":true}}"#,
    // Tool calls' arguments: Codex's and goose's shell and editor, then Claude Code's tools.
    r#"{"command":["bash","-lc",""],"workdir":"","timeout_ms":10000}{"command":"view","path":""}"#,
    r#"{"task_id":"","block":true,"timeout":30000}{"description":"","prompt":"","subagent_type":"general-purpose"}"#,
    r#"{"todos":[{"content":"","status":"completed","activeForm":""},{"content":"","status":"in_progress","activeForm":""}]}"#,
    r#"{"pattern":"","path":"","output_mode":"content","-n":true,"glob":""}"#,
    r#"{"file_path":"","old_string":"","new_string":"","replace_all":false}"#,
    r#"{"file_path":"","offset":1,"limit":100}{"command":"","description":""}"#,
    // Claude Code: short `toolUseResult`s of the common tools, kept whole.
    r#"{"stdout":"","stderr":"","interrupted":false,"isImage":false,"returnCodeInterpretation":"","noOutputExpected":false}"#,
    r#"{"type":"text","file":{"filePath":"","content":"","numLines":0,"startLine":1,"totalLines":0}}"#,
    r#"{"filePath":"","oldString":"","newString":"","originalFile":"","structuredPatch":[],"userModified":false,"replaceAll":false}"#,
    // Claude Code: a tool result's line, its stored block, and an assistant response's line.
    r#"{"lines":[1],"sourceToolAssistantUUID":"","toolUseResult":{"omitted":"too large to keep in the session; see the raw line","approx_bytes":1000},"offsets":[0],"branch":"inactive"}"#,
    r#"{"tool_use_id":"toolu_01","type":"tool_result","is_error":false}"#,
    r#"{"lines":[1,2],"message_id":"msg_01","model":"claude-opus-4-6","usage":{"input_tokens":3,"cache_creation_input_tokens":1000,"cache_read_input_tokens":10000,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":1000},"output_tokens":10,"service_tier":"standard","inference_geo":"not_available"},"requestId":"req_011C","offsets":[1000,2000]}"#,
);

/// The first bytes of every zstd frame. No JSON text starts with `(`, so a held text that
/// starts with them is a packed one.
pub const MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

thread_local! {
    // One context per thread, the dictionary loaded once: a context per call costs more than
    // packing a few hundred bytes.
    static PACKER: RefCell<Option<zstd::bulk::Compressor<'static>>> = const { RefCell::new(None) };
    static UNPACKER: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

/// `text` (UTF-8) packed, when that makes it shorter.
pub fn pack(text: &[u8]) -> Option<Box<[u8]>> {
    PACKER.with(|p| {
        let mut p = p.borrow_mut();
        if p.is_none() {
            // Level 1: these are packed as a session is read, once per message.
            *p = zstd::bulk::Compressor::with_dictionary(-1, DICTIONARY.as_bytes()).ok();
        }
        let packed = p.as_mut()?.compress(text).ok()?;
        (packed.len() < text.len()).then(|| packed.into_boxed_slice())
    })
}

/// The length in bytes of the text `packed` was made from, read from the frame's header
/// (`pack` writes it there), without unpacking it.
pub fn unpacked_len(packed: &[u8]) -> Option<usize> {
    let len = zstd::zstd_safe::get_frame_content_size(packed).ok()??;
    usize::try_from(len).ok()
}

/// The text `packed` was made from; `None` when it is not a frame made by [`pack`].
pub fn unpack(packed: &[u8]) -> Option<String> {
    let len = unpacked_len(packed)?;
    let bytes = UNPACKER.with(|u| {
        let mut u = u.borrow_mut();
        if u.is_none() {
            *u = zstd::bulk::Decompressor::with_dictionary(DICTIONARY.as_bytes()).ok();
        }
        u.as_mut()?.decompress(packed, len).ok()
    })?;
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn details_shaped_like_the_dictionary_shrink_and_read_back() {
        let text = r#"{"lines":[6,7,8],"message_id":"msg_01EEiRWuVvwAmenNJXZcerPY","model":"claude-opus-4-6","usage":{"input_tokens":3,"cache_creation_input_tokens":8037,"cache_read_input_tokens":17842,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":8037},"output_tokens":10,"service_tier":"standard","inference_geo":"not_available"},"requestId":"req_011CY2vXjEarsCbh9bG1N7Yz","offsets":[2508,3350,4564]}"#;
        let packed = pack(text.as_bytes()).expect("a Claude Code response's details shrink");
        assert!(
            packed.len() * 3 < text.len(),
            "the dictionary holds its keys and constants, so it packs to under a third: {} of {}",
            packed.len(),
            text.len()
        );
        assert_eq!(
            packed[..4],
            MAGIC,
            "a frame starts with the magic the type tells it by"
        );
        assert_eq!(
            unpack(&packed).as_deref(),
            Some(text),
            "it reads back exactly"
        );
    }

    #[test]
    fn text_the_dictionary_does_not_know_still_reads_back() {
        let text = r#"{"z":"Ünïcode ✓","n":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]}"#;
        let back = pack(text.as_bytes()).map_or_else(|| text.to_owned(), |p| unpack(&p).unwrap());
        assert_eq!(back, text, "packed or not, the same text");
        assert_eq!(
            unpack(b"{\"a\":1}"),
            None,
            "a text that is no frame is not unpacked"
        );
    }
}
