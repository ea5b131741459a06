//! The views the index keeps beside a session and the window shows first, made from the layers
//! of this crate: a row per message (`timeline`), every cut with its anatomy, requests and
//! pairing lint (`cuts`), and the token report (`tokens`). The other views (panels, the message
//! in the inspector, the sidebar's sources) are core's, which names these beside its own.

pub mod cuts;
pub mod timeline;
pub mod tokens;
