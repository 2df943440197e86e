//! A text file as lines that remember their own line endings, so an edit
//! rewrites only the lines it replaces: untouched lines keep their bytes, new
//! lines take the file's dominant ending (CRLF files stay CRLF), and a file
//! without a final newline still has none afterwards.

/// A file split into lines; `text` has no ending, `eol` is `"\n"`, `"\r\n"`
/// or `""` (only on the last line, when the file has no final newline).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileText {
    /// A UTF-8 byte-order mark, kept out of the first line so SEARCH text
    /// (which never carries one) can match it, and written back unchanged.
    pub bom: bool,
    pub lines: Vec<Line>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub text: String,
    pub eol: &'static str,
}

impl FileText {
    /// Split UTF-8 text into lines. `None` when the bytes are not UTF-8:
    /// such files are refused rather than edited lossily.
    pub fn parse(bytes: &[u8]) -> Option<FileText> {
        let text = std::str::from_utf8(bytes).ok()?;
        let (bom, text) = match text.strip_prefix('\u{feff}') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let mut lines = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let (line, eol, next) = match rest.find('\n') {
                Some(i) => {
                    let line = &rest[..i];
                    match line.strip_suffix('\r') {
                        Some(l) => (l, "\r\n", &rest[i + 1..]),
                        None => (line, "\n", &rest[i + 1..]),
                    }
                }
                None => (rest, "", ""),
            };
            lines.push(Line {
                text: line.to_owned(),
                eol,
            });
            rest = next;
        }
        Some(FileText { bom, lines })
    }

    /// The ending new lines get: CRLF when most existing lines use it.
    pub fn dominant_eol(&self) -> &'static str {
        let crlf = self.lines.iter().filter(|l| l.eol == "\r\n").count();
        let lf = self.lines.iter().filter(|l| l.eol == "\n").count();
        if crlf > lf { "\r\n" } else { "\n" }
    }

    pub fn has_final_newline(&self) -> bool {
        self.lines.last().is_none_or(|l| !l.eol.is_empty())
    }

    /// The lines' text only, for matching.
    pub fn texts(&self) -> Vec<&str> {
        self.lines.iter().map(|l| l.text.as_str()).collect()
    }

    /// Replace the 1-based inclusive lines `start..=end` (`end = start - 1`
    /// inserts before `start`) with `new_lines`, ending them with the file's
    /// dominant ending and keeping the final-newline state of the file.
    pub fn splice(&mut self, start: usize, end: usize, new_lines: &[&str]) {
        let eol = self.dominant_eol();
        let final_newline = self.has_final_newline();
        let from = start.saturating_sub(1).min(self.lines.len());
        let to = end.min(self.lines.len()).max(from);
        let replacement = new_lines.iter().map(|t| Line {
            text: (*t).to_owned(),
            eol,
        });
        self.lines.splice(from..to, replacement);
        if let Some(last) = self.lines.last_mut() {
            if final_newline {
                if last.eol.is_empty() {
                    last.eol = eol;
                }
            } else {
                last.eol = "";
            }
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        if self.bom {
            out.extend_from_slice("\u{feff}".as_bytes());
        }
        for l in &self.lines {
            out.extend_from_slice(l.text.as_bytes());
            out.extend_from_slice(l.eol.as_bytes());
        }
        out
    }
}

/// The lines of an LF-normalised block body (`"a\nb\n"` → `["a", "b"]`).
pub fn body_lines(body: &str) -> Vec<&str> {
    body.split_terminator('\n').collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(bytes: &[u8]) {
        assert_eq!(FileText::parse(bytes).unwrap().to_bytes(), bytes);
    }

    #[test]
    fn parse_keeps_every_byte() {
        roundtrip(b"");
        roundtrip(b"a");
        roundtrip(b"a\n");
        roundtrip(b"a\r\nb\r\n");
        roundtrip(b"a\r\nb\nc");
        roundtrip(b"\n\n");
        roundtrip("\u{feff}a\r\nb".as_bytes());
        assert_eq!(
            FileText::parse("\u{feff}a\n".as_bytes()).unwrap().texts(),
            ["a"]
        );
        assert!(FileText::parse(&[0xff, 0xfe]).is_none());
    }

    #[test]
    fn splice_uses_the_dominant_ending_and_keeps_untouched_lines() {
        let mut f = FileText::parse(b"a\r\nb\r\nc\n").unwrap();
        f.splice(2, 2, &["B1", "B2"]);
        assert_eq!(f.to_bytes(), b"a\r\nB1\r\nB2\r\nc\n");
    }

    #[test]
    fn splice_keeps_the_final_newline_state() {
        let mut f = FileText::parse(b"a\nb").unwrap();
        f.splice(2, 2, &["B", "C"]);
        assert_eq!(f.to_bytes(), b"a\nB\nC");
        let mut f = FileText::parse(b"a\nb").unwrap();
        f.splice(2, 2, &[]);
        assert_eq!(f.to_bytes(), b"a");
        let mut f = FileText::parse(b"a\nb\n").unwrap();
        f.splice(1, 2, &["x"]);
        assert_eq!(f.to_bytes(), b"x\n");
        let mut f = FileText::parse(b"").unwrap();
        f.splice(1, 0, &["new"]);
        assert_eq!(f.to_bytes(), b"new\n");
    }
}
