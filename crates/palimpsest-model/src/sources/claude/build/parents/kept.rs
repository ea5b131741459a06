//! [`Parents`] in a reader's snapshot (`resume::saved`): the numbered uuids and their parents
//! as they are, the lookup table made again on reading. What a snapshot holds is
//! `resume::saved`'s business.

use super::{Parents, ROOT, UNSEEN, Uid, key_of, text_span};

/// What a snapshot keeps of [`Parents`] (`resume::saved`): the numbered uuids and their
/// parents; the lookup table is made again on reading, with this process's seed.
#[derive(serde::Serialize)]
struct KeptOut<'a> {
    names: &'a serde_bytes::Bytes,
    texts: &'a [u64],
    text: &'a str,
    parent: &'a [u32],
}

#[derive(serde::Deserialize)]
struct KeptIn {
    names: serde_bytes::ByteBuf,
    texts: Vec<u64>,
    text: String,
    parent: Vec<u32>,
}

impl serde::Serialize for Parents {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        KeptOut {
            names: serde_bytes::Bytes::new(self.names.as_flattened()),
            texts: &self.texts,
            text: &self.text,
            parent: &self.parent,
        }
        .serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for Parents {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let k = KeptIn::deserialize(d)?;
        let names: Vec<[u8; 16]> = k
            .names
            .chunks_exact(16)
            .map(|c| c.try_into().unwrap_or([0; 16]))
            .collect();
        let n = names.len();
        if k.names.len() != n * 16 || k.parent.len() != n {
            return Err(D::Error::custom("uuid table of unequal lengths"));
        }
        let bad_parent = |p: u32| p != UNSEEN && p != ROOT && p as usize >= n;
        if k.parent.iter().any(|&p| bad_parent(p)) {
            return Err(D::Error::custom("a parent beyond the uuid table"));
        }
        let mut p = Parents {
            names,
            texts: k.texts,
            text: k.text,
            parent: k.parent,
            ..Parents::default()
        };
        // A text uuid's span must lie in the text, on character boundaries, or looking it up
        // would panic.
        let outside = (0..n as Uid)
            .filter_map(|i| text_span(&p.names, &p.texts, i))
            .any(|span| p.text.get(span).is_none());
        if outside {
            return Err(D::Error::custom("a uuid outside the uuid text"));
        }
        let (names, texts, text, seed) = (&p.names, &p.texts, &p.text, p.seed);
        for i in 0..n as Uid {
            let h = key_of(names, texts, text, i).hash(seed);
            p.table
                .insert_unique(h, i, |&m| key_of(names, texts, text, m).hash(seed));
        }
        Ok(p)
    }
}
