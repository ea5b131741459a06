//! (placeholder) — filled by the issue that owns `replay`.
