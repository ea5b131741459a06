//! How the harness tests print a listing entry, so each compares whole lines: id, format,
//! name, parent, counts and model (a test adds what else it checks).

use palimpsest_core::model::SessionMeta;

/// `id format "name" parent=… messages=… cuts=… model=…`.
pub fn line(m: &SessionMeta) -> String {
    format!(
        "{} {} {:?} parent={:?} messages={} cuts={} model={:?}",
        m.id,
        m.format.as_str(),
        m.name,
        m.parent_id,
        m.message_count,
        m.compaction_count,
        m.model
    )
}
