//! Content an answer or a prompt carries beside its text: an image, a sound, or a resource
//! embedded whole. Each block goes to the host as it is attached, in order; the host checks it
//! (the MIME type against the bytes, no `camber:` URI, text free of local paths, the caller's
//! byte cap) and the call fails, naming the block, if it does not pass.

use crate::bindings::camber::capability::content::{attach, Block, Embedded, Media};

/// An image: `image/png`, `image/jpeg`, `image/gif` or `image/webp`, with a line saying what it
/// shows (a client that shows no images shows that).
pub fn image(mime_type: &str, bytes: &[u8], alt: &str) {
    attach(&Block::Image(Media { mime_type: mime_type.into(), data: bytes.to_vec(), alt: alt.into() }));
}

/// A sound: `audio/wav`, `audio/mpeg` or `audio/ogg`, with a line saying what it is.
pub fn audio(mime_type: &str, bytes: &[u8], alt: &str) {
    attach(&Block::Audio(Media { mime_type: mime_type.into(), data: bytes.to_vec(), alt: alt.into() }));
}

/// A resource embedded whole, as text.
pub fn embedded_text(uri: &str, mime_type: &str, text: &str) {
    attach(&Block::EmbeddedResource(Embedded {
        uri: uri.into(),
        mime_type: mime_type.into(),
        text: Some(text.into()),
        blob: None,
    }));
}

/// A resource embedded whole, as bytes.
pub fn embedded_bytes(uri: &str, mime_type: &str, bytes: &[u8]) {
    attach(&Block::EmbeddedResource(Embedded {
        uri: uri.into(),
        mime_type: mime_type.into(),
        text: None,
        blob: Some(bytes.to_vec()),
    }));
}
