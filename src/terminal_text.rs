//! Untrusted text on its way to a terminal: file content, paths, names and
//! a model's reply are stripped of control characters and whole escape
//! sequences, so that none of them can set the window title (`ESC ]0;`),
//! write the clipboard (`ESC ]52;`), clear the screen (`ESC [2J`) or move
//! the cursor over earlier output. Line breaks and tabs are kept.
//!
//! [`ControlFilter`] keeps its place between pieces, so a sequence split
//! over two chunks of a streamed reply is removed whole; [`strip`] filters
//! one complete text. The explorer draws through ratatui, whose buffer
//! drops every grapheme holding a control character; this is the same
//! policy for text written to the terminal directly.
//!
//! [`counted`] writes a count with its noun in the right number, for the
//! CLI and the explorer alike.

use std::borrow::Cow;
use std::io::{self, Write};

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum State {
    #[default]
    Text,
    /// After ESC: an intermediate byte may follow, then a final one.
    Escape,
    /// A control sequence (`ESC [` or C1 CSI): parameters up to a final byte.
    Csi,
    /// A string sequence (OSC, DCS, SOS, PM, APC): up to BEL or ST.
    Str,
    /// ESC inside a string sequence: `\` ends it (ST).
    StrEscape,
    /// 0xC2 inside a string sequence: 0x9C ends it (the C1 ST).
    StrC2,
    /// The lead byte 0xC2 of a two-byte UTF-8 character, which is a C1
    /// control when the next byte is 0x80..=0x9F.
    C2,
}

/// A byte-level filter that removes control characters (all but `\n` and
/// `\t`) and escape sequences from a stream, whatever its chunking.
#[derive(Debug, Default, Clone)]
pub struct ControlFilter {
    state: State,
}

impl ControlFilter {
    pub fn new() -> ControlFilter {
        ControlFilter::default()
    }

    /// Append the printable part of `input` to `out`.
    pub fn push(&mut self, input: &[u8], out: &mut Vec<u8>) {
        for &b in input {
            self.step(b, out);
        }
    }

    fn step(&mut self, b: u8, out: &mut Vec<u8>) {
        self.state = match self.state {
            State::Text => text(b, out),
            State::Escape => match b {
                b'[' => State::Csi,
                b']' | b'P' | b'X' | b'^' | b'_' => State::Str,
                0x20..=0x2f => State::Escape,
                // A final byte ends a two-byte sequence; anything else
                // cancels it and is taken as text.
                0x30..=0x7e => State::Text,
                _ => text(b, out),
            },
            State::Csi => match b {
                0x20..=0x3f => State::Csi,
                0x40..=0x7e => State::Text,
                _ => text(b, out),
            },
            State::Str => match b {
                BEL => State::Text,
                ESC => State::StrEscape,
                0xc2 => State::StrC2,
                // A string sequence never spans lines here: a lost
                // terminator must not swallow the rest of the output.
                b'\n' => {
                    out.push(b);
                    State::Text
                }
                _ => State::Str,
            },
            State::StrC2 if b == 0x9c => State::Text,
            State::StrC2 => {
                self.state = State::Str;
                return self.step(b, out);
            }
            State::StrEscape if b == b'\\' => State::Text,
            State::StrEscape => {
                // Not ST: the ESC starts a sequence of its own.
                self.state = State::Escape;
                return self.step(b, out);
            }
            State::C2 => match b {
                0x9b => State::Csi,
                0x90 | 0x98 | 0x9d | 0x9e | 0x9f => State::Str,
                0x80..=0x9f => State::Text,
                _ => {
                    out.push(0xc2);
                    text(b, out)
                }
            },
        };
    }

    /// Flush what a pending lead byte held back (at the end of a stream).
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        if self.state == State::C2 {
            out.push(0xc2);
        }
        self.state = State::Text;
    }

    /// The printable part of one piece of a streamed text. A character
    /// split over two pieces is completed with the next one.
    pub fn push_str(&mut self, piece: &str) -> String {
        let mut out = Vec::with_capacity(piece.len());
        self.push(piece.as_bytes(), &mut out);
        // Only whole sequences and single control characters (never part
        // of another character) are removed, and a held-back 0xC2 is
        // emitted with its continuation byte; what is left is UTF-8 up to
        // that held-back byte.
        String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

/// One byte outside any sequence.
fn text(b: u8, out: &mut Vec<u8>) -> State {
    match b {
        ESC => State::Escape,
        0xc2 => State::C2,
        b'\n' | b'\t' => {
            out.push(b);
            State::Text
        }
        0x00..=0x1f | 0x7f => State::Text,
        _ => {
            out.push(b);
            State::Text
        }
    }
}

/// `text` without control characters (but `\n` and `\t`) and escape
/// sequences; borrowed when there was nothing to remove.
pub fn strip(text: &str) -> Cow<'_, str> {
    let clean = text
        .chars()
        .all(|c| c == '\n' || c == '\t' || !c.is_control());
    if clean {
        return Cow::Borrowed(text);
    }
    let mut filter = ControlFilter::new();
    let mut out = Vec::with_capacity(text.len());
    filter.push(text.as_bytes(), &mut out);
    filter.finish(&mut out);
    Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

/// A writer that passes only what [`ControlFilter`] keeps, or everything
/// when it is off (JSON, a patch or a prompt meant for another program).
pub struct TerminalWriter<W: Write> {
    inner: W,
    filter: Option<ControlFilter>,
    scratch: Vec<u8>,
}

impl<W: Write> TerminalWriter<W> {
    pub fn new(inner: W, filtered: bool) -> TerminalWriter<W> {
        TerminalWriter {
            inner,
            filter: filtered.then(ControlFilter::new),
            scratch: Vec::new(),
        }
    }
}

impl<W: Write> Write for TerminalWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Some(filter) = self.filter.as_mut() else {
            return self.inner.write(buf);
        };
        self.scratch.clear();
        filter.push(buf, &mut self.scratch);
        self.inner.write_all(&self.scratch)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// `n` and its noun, singular for exactly one: `counted(1, "match",
/// "matches")` is "1 match", `counted(0, …)` "0 matches".
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_and_controls_are_removed_whole() {
        assert_eq!(strip("plain\ttext\n"), "plain\ttext\n");
        assert!(matches!(strip("plain"), Cow::Borrowed(_)));
        assert_eq!(strip("a\x1b]0;title\x07b"), "ab");
        assert_eq!(strip("a\x1b]52;c;aGVsbG8=\x1b\\b"), "ab");
        assert_eq!(strip("a\x1b[2Jb\x1b[1;31mc\x1b[0m"), "abc");
        assert_eq!(strip("a\x1bPq#0;1\x1b\\b"), "ab");
        assert_eq!(strip("a\x1b(Bb\x1b7c"), "abc");
        assert_eq!(strip("over\rwrite\x08\x7f\x00"), "overwrite");
        // C1 controls: CSI and OSC as single characters.
        assert_eq!(strip("a\u{9b}2Jb\u{9d}0;t\u{9c}c\u{85}d"), "abcd");
        // Other characters, two-byte ones from the same lead byte included.
        assert_eq!(strip("é¢© ü — 名前\x1b[Kx"), "é¢© ü — 名前x");
        // An unterminated string sequence ends at the line's end.
        assert_eq!(strip("a\x1b]0;title\nnext"), "a\nnext");
    }

    #[test]
    fn a_sequence_split_between_pieces_is_removed_whole() {
        let reply = "before \x1b]52;c;ZXZpbA==\x07 mid \x1b[2J after ¢\u{9b}31m end\n";
        let bytes = reply.as_bytes();
        for cut in 0..bytes.len() {
            let mut filter = ControlFilter::new();
            let mut out = Vec::new();
            filter.push(&bytes[..cut], &mut out);
            filter.push(&bytes[cut..], &mut out);
            filter.finish(&mut out);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                "before  mid  after ¢ end\n",
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn the_writer_filters_only_when_asked() {
        let mut filtered = TerminalWriter::new(Vec::new(), true);
        write!(filtered, "a\x1b[2Jb\r\n").unwrap();
        assert_eq!(filtered.inner, b"ab\n");
        let mut raw = TerminalWriter::new(Vec::new(), false);
        write!(raw, "a\x1b[2Jb\r\n").unwrap();
        assert_eq!(raw.inner, b"a\x1b[2Jb\r\n");
    }
}
