//! `y` / `Y`: copying through the terminal itself with OSC 52, so it works
//! over ssh and inside tmux (`set -g set-clipboard on`) with no clipboard
//! program on either machine. The sequence goes to the terminal the
//! explorer draws on; tests give [`Clipboard::to`] a buffer instead.

use std::io::{self, Write};

pub struct Clipboard {
    out: Box<dyn Write + Send>,
}

impl Clipboard {
    /// The terminal (standard output, where the explorer draws).
    pub fn terminal() -> Clipboard {
        Clipboard::to(io::stdout())
    }

    pub fn to(out: impl Write + Send + 'static) -> Clipboard {
        Clipboard { out: Box::new(out) }
    }

    pub fn copy(&mut self, text: &str) -> io::Result<()> {
        self.out.write_all(osc52(text).as_bytes())?;
        self.out.flush()
    }
}

/// Set the system clipboard (`c`) to `text`; BEL ends it, which more
/// terminals accept than ST.
pub fn osc52(text: &str) -> String {
    format!("\x1b]52;c;{}\x07", base64(text.as_bytes()))
}

/// Standard base64 (RFC 4648, padded), all OSC 52 needs.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_rfc_4648_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
            ("é→", "w6nihpI="),
        ];
        for (text, encoded) in cases {
            assert_eq!(base64(text.as_bytes()), encoded, "{text:?}");
        }
    }

    #[test]
    fn the_sequence_sets_the_clipboard_selection() {
        assert_eq!(osc52("foo"), "\x1b]52;c;Zm9v\x07");
    }
}
