//! The content blocks a guest attaches to a call's answer or a prompt (WIT `content`: images,
//! sounds, embedded resources), checked before any adapter carries them: the MIME type must be
//! one a client can show and the bytes must be of that type; an embedded resource names a URI
//! outside the host's own `camber:` scheme and holds text or bytes; alt text is one line and
//! text has no local path. A block that fails is the capability's fault, refused as such.

use base64::Engine;
use camber_common::redact::{Redactor, Sent};
use camber_common::text::one_line;
use camber_common::ContentBlock;
use camber_runtime::bindings::camber::capability::content::{Block, Embedded, Media};

/// Image types an MCP client shows, and the bytes each file starts with.
const IMAGE_TYPES: [(&str, &[&[u8]]); 4] = [
    ("image/png", &[b"\x89PNG\r\n\x1a\n"]),
    ("image/jpeg", &[b"\xff\xd8\xff"]),
    ("image/gif", &[b"GIF87a", b"GIF89a"]),
    ("image/webp", &[b"RIFF"]),
];

/// Sound types, and the bytes each file starts with (an MP3 may start with its ID3 tag or a
/// frame's sync bits).
const AUDIO_TYPES: [(&str, &[&[u8]]); 3] = [
    ("audio/wav", &[b"RIFF"]),
    ("audio/mpeg", &[b"ID3", b"\xff\xfb", b"\xff\xf3", b"\xff\xf2"]),
    ("audio/ogg", &[b"OggS"]),
];

/// The longest alt text kept, in characters.
const ALT_MAX: usize = 300;
/// The longest URI an embedded resource may name.
const URI_MAX: usize = 2048;

/// Each block checked and made what the adapters carry; the first that fails says why.
/// `dropped` blocks past the host's limits fail the lot.
pub fn check(
    blocks: Vec<Block>,
    dropped: usize,
    redactor: &Redactor,
    sent: &Sent,
) -> Result<Vec<ContentBlock>, String> {
    if dropped > 0 {
        return Err(format!(
            "attached more than {} content blocks or {} MiB of them",
            camber_runtime::Attached::MAX,
            camber_runtime::Attached::MAX_BYTES >> 20
        ));
    }
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    let alt = |a: &str| {
        let line = one_line(a);
        redactor.redact_echoes(&camber_common::text::cut(&line, ALT_MAX).unwrap_or(line), sent)
    };
    blocks
        .into_iter()
        .enumerate()
        .map(|(k, block)| {
            let at = |why: String| format!("attached content block {} {why}", k + 1);
            Ok(match block {
                Block::Image(Media { mime_type, data, alt: a }) => {
                    media(&mime_type, &data, &IMAGE_TYPES, "image").map_err(at)?;
                    ContentBlock::Image { mime_type, data: b64(&data), alt: alt(&a) }
                }
                Block::Audio(Media { mime_type, data, alt: a }) => {
                    media(&mime_type, &data, &AUDIO_TYPES, "sound").map_err(at)?;
                    ContentBlock::Audio { mime_type, data: b64(&data), alt: alt(&a) }
                }
                Block::EmbeddedResource(Embedded { uri, mime_type, text, blob }) => {
                    resource_uri(&uri).map_err(at)?;
                    if !mime_type.split_once('/').is_some_and(|(t, s)| !t.is_empty() && !s.is_empty())
                        || mime_type.chars().any(char::is_whitespace)
                    {
                        return Err(at(format!(
                            "has the MIME type '{}', which is not type/subtype",
                            one_line(&mime_type)
                        )));
                    }
                    let (text, blob) = match (text, blob) {
                        (Some(t), None) => (Some(redactor.redact_echoes(&t, sent)), None),
                        (None, Some(b)) => (None, Some(b64(&b))),
                        _ => return Err(at("must hold its text or its bytes, one of them".into())),
                    };
                    ContentBlock::Resource { uri, mime_type, text, blob }
                }
            })
        })
        .collect()
}

/// An image's or a sound's type is one of `types`, and its bytes start as that type's do.
fn media(mime: &str, data: &[u8], types: &[(&str, &[&[u8]])], what: &str) -> Result<(), String> {
    let Some((_, magic)) = types.iter().find(|(t, _)| *t == mime) else {
        let known: Vec<&str> = types.iter().map(|(t, _)| *t).collect();
        return Err(format!("is a {what} of type '{}', not one of {}", one_line(mime), known.join(", ")));
    };
    if !magic.iter().any(|m| data.starts_with(m)) {
        return Err(format!("says {mime} but its bytes are not"));
    }
    Ok(())
}

/// A URI with a scheme, no spaces or control characters, not the host's own `camber:`.
pub(crate) fn resource_uri(uri: &str) -> Result<(), String> {
    let scheme = uri.split_once(':').map(|(s, _)| s).unwrap_or("");
    let scheme_ok = scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if uri.is_empty() || uri.len() > URI_MAX || !scheme_ok || uri.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!("names the resource '{}', which is not a URI", one_line(uri)));
    }
    if scheme.eq_ignore_ascii_case("camber") {
        return Err("names a camber: resource, which only the host serves".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(mime: &str, data: &[u8]) -> Block {
        Block::Image(Media { mime_type: mime.into(), data: data.to_vec(), alt: "a red\npixel".into() })
    }

    fn embedded(uri: &str, text: Option<&str>, blob: Option<&[u8]>) -> Block {
        Block::EmbeddedResource(Embedded {
            uri: uri.into(),
            mime_type: "text/plain".into(),
            text: text.map(str::to_string),
            blob: blob.map(<[u8]>::to_vec),
        })
    }

    fn run(blocks: Vec<Block>) -> Result<Vec<ContentBlock>, String> {
        check(blocks, 0, &Redactor::new(vec!["/srv/camber".into()]), &Sent::new(std::iter::empty()))
    }

    #[test]
    fn good_blocks_pass_in_order_base64_and_one_line() {
        let got = run(vec![
            image("image/png", b"\x89PNG\r\n\x1a\nrest"),
            Block::Audio(Media { mime_type: "audio/wav".into(), data: b"RIFF....WAVE".to_vec(), alt: String::new() }),
            embedded("test://embedded", Some("read /srv/camber/store here"), None),
            embedded("test://bytes", None, Some(b"\x00\x01")),
        ])
        .unwrap();
        assert!(
            matches!(&got[0], ContentBlock::Image { data, alt, .. } if data == "iVBORw0KGgpyZXN0" && alt == "a red pixel")
        );
        assert!(matches!(&got[1], ContentBlock::Audio { mime_type, .. } if mime_type == "audio/wav"));
        assert!(
            matches!(&got[2], ContentBlock::Resource { text: Some(t), .. } if !t.contains("/srv/camber")),
            "{got:?}"
        );
        assert!(matches!(&got[3], ContentBlock::Resource { blob: Some(b), text: None, .. } if b == "AAE="));
    }

    #[test]
    fn a_bad_block_is_refused_naming_it() {
        let cases = [
            (image("image/png", b"GIF89a..."), "block 1 says image/png but its bytes are not"),
            (image("image/svg+xml", b"<svg/>"), "not one of image/png"),
            (embedded("camber://facility/hq/report", Some("x"), None), "only the host serves"),
            (embedded("no scheme", Some("x"), None), "which is not a URI"),
            (embedded("test://both", Some("x"), Some(b"y")), "one of them"),
            (embedded("test://none", None, None), "one of them"),
        ];
        for (block, want) in cases {
            let e = run(vec![block]).unwrap_err();
            assert!(e.contains(want), "{e}");
        }
        let e = check(Vec::new(), 1, &Redactor::new(Vec::new()), &Sent::new(std::iter::empty())).unwrap_err();
        assert!(e.contains("more than 32"), "{e}");
    }
}
