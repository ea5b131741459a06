//! (placeholder) — filled by the issue that owns `tokens`.
