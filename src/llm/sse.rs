//! Server-sent events over raw bytes, following the WHATWG parsing rules
//! (<https://html.spec.whatwg.org/multipage/server-sent-events.html>): bytes are
//! buffered and cut on `\n`, `\r\n` or `\r`, and only complete lines are
//! decoded, because TCP splits a stream anywhere — mid-line and mid-character.
//! Comment lines (`:`) are keep-alives and are dropped; `data:` lines of one
//! event are joined with `\n`; a blank line dispatches the event. Fed
//! incrementally by the transport, one network chunk at a time.

/// One dispatched event. `event` is `message` when the server named none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    pub event: String,
    pub data: String,
    pub id: Option<String>,
}

/// A line longer than this is not an LLM stream; refusing it bounds memory
/// when a misconfigured server sends megabytes without a newline.
const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("a stream line exceeded {MAX_LINE_BYTES} bytes without a line break")]
pub struct LineTooLong;

#[derive(Debug, Default)]
pub struct SseParser {
    /// Bytes of the current, still incomplete line.
    line: Vec<u8>,
    /// The previous chunk ended in `\r`: a `\n` opening the next chunk belongs
    /// to that line ending (a `\r\n` split across two reads), not a blank line.
    after_cr: bool,
    /// The byte-order mark may only open the stream, so it is checked once.
    started: bool,
    event: String,
    data: String,
    has_data: bool,
    last_id: Option<String>,
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Consume one network chunk, appending every event it completes to `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), LineTooLong> {
        let mut i = 0;
        if self.after_cr && !chunk.is_empty() {
            self.after_cr = false;
            if chunk[0] == b'\n' {
                i = 1;
            }
        }
        let mut start = i;
        while let Some(off) = chunk[i..].iter().position(|&b| b == b'\n' || b == b'\r') {
            let end = i + off;
            self.line.extend_from_slice(&chunk[start..end]);
            self.process_line(out);
            i = end + 1;
            if chunk[end] == b'\r' {
                match chunk.get(i) {
                    Some(b'\n') => i += 1,
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            start = i;
        }
        self.line.extend_from_slice(&chunk[start..]);
        if self.line.len() > MAX_LINE_BYTES {
            return Err(LineTooLong);
        }
        Ok(())
    }

    fn process_line(&mut self, out: &mut Vec<SseEvent>) {
        let mut bytes: &[u8] = &self.line;
        if !self.started {
            self.started = true;
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        if bytes.is_empty() {
            self.dispatch(out);
            return;
        }
        // Line endings never occur inside a UTF-8 sequence, so a complete line
        // decodes on its own; invalid bytes become U+FFFD as the spec says.
        let line = String::from_utf8_lossy(bytes);
        if !line.starts_with(':') {
            let (field, value) = match line.split_once(':') {
                Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
                None => (&*line, ""),
            };
            match field {
                "event" => self.event = value.to_owned(),
                "data" => {
                    if self.has_data {
                        self.data.push('\n');
                    }
                    self.data.push_str(value);
                    self.has_data = true;
                }
                "id" if !value.contains('\0') => self.last_id = Some(value.to_owned()),
                // `retry` sets a reconnection delay; a POST generation is never
                // reconnected (that would bill the prompt again), so it is unused.
                _ => {}
            }
        }
        self.line.clear();
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        self.line.clear();
        let event = std::mem::take(&mut self.event);
        if !self.has_data {
            // An event with no data is not dispatched; its type is reset.
            return;
        }
        self.has_data = false;
        out.push(SseEvent {
            event: if event.is_empty() {
                "message".to_owned()
            } else {
                event
            },
            data: std::mem::take(&mut self.data),
            id: self.last_id.clone(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_chunks(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut parser = SseParser::new();
        let mut out = Vec::new();
        for chunk in chunks {
            parser.feed(chunk, &mut out).unwrap();
        }
        out
    }

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.to_owned(),
            data: data.to_owned(),
            id: None,
        }
    }

    #[test]
    fn named_events_and_default_type() {
        let got = parse_chunks(&[b"event: ping\ndata: {\"type\":\"ping\"}\n\ndata: [DONE]\n\n"]);
        assert_eq!(
            got,
            vec![ev("ping", "{\"type\":\"ping\"}"), ev("message", "[DONE]")]
        );
    }

    #[test]
    fn all_three_line_endings() {
        let got = parse_chunks(&[b"data: a\r\n\r\ndata: b\r\rdata: c\n\n"]);
        assert_eq!(
            got,
            vec![ev("message", "a"), ev("message", "b"), ev("message", "c")]
        );
    }

    #[test]
    fn crlf_split_across_chunks_is_one_line_ending() {
        let got = parse_chunks(&[b"data: a\r", b"\n", b"\r", b"\ndata: b\r\n\r\n"]);
        assert_eq!(got, vec![ev("message", "a"), ev("message", "b")]);
    }

    #[test]
    fn comments_ignored_and_multiline_data_joined() {
        let got = parse_chunks(&[b": ping\ndata: one\n: mid\ndata:two\ndata\n\n"]);
        assert_eq!(got, vec![ev("message", "one\ntwo\n")]);
    }

    #[test]
    fn only_one_space_after_colon_is_stripped() {
        let got = parse_chunks(&[b"data:  x\n\n"]);
        assert_eq!(got, vec![ev("message", " x")]);
    }

    #[test]
    fn event_without_data_is_not_dispatched_and_resets_type() {
        let got = parse_chunks(&[b"event: lonely\n\ndata: x\n\n"]);
        assert_eq!(got, vec![ev("message", "x")]);
    }

    #[test]
    fn incomplete_event_at_end_is_not_dispatched() {
        let got = parse_chunks(&[b"data: a\n\ndata: partial\n"]);
        assert_eq!(got, vec![ev("message", "a")]);
    }

    #[test]
    fn split_mid_line_and_mid_character_at_every_offset() {
        let stream = "event: content_block_delta\ndata: {\"text\":\"héllo ✓ 🚀\"}\n\n".as_bytes();
        let whole = parse_chunks(&[stream]);
        assert_eq!(whole.len(), 1);
        assert!(whole[0].data.contains("héllo ✓ 🚀"));
        for cut in 0..=stream.len() {
            assert_eq!(
                parse_chunks(&[&stream[..cut], &stream[cut..]]),
                whole,
                "cut at {cut}"
            );
        }
        let bytewise: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(parse_chunks(&bytewise), whole);
    }

    #[test]
    fn bom_stripped_only_at_start_and_ids_kept() {
        let got = parse_chunks(&[b"\xEF\xBB", b"\xBFid: 7\ndata: x\n\ndata: y\n\n"]);
        assert_eq!(got[0].id.as_deref(), Some("7"));
        assert_eq!(got[1].id.as_deref(), Some("7"));
        assert_eq!(got[0].data, "x");
    }

    #[test]
    fn invalid_utf8_becomes_replacement_not_a_panic() {
        let got = parse_chunks(&[b"data: \xFF\xFE\n\n"]);
        assert_eq!(got, vec![ev("message", "\u{FFFD}\u{FFFD}")]);
    }

    #[test]
    fn endless_line_is_refused() {
        let mut parser = SseParser::new();
        let mut out = Vec::new();
        let block = vec![b'x'; 1024 * 1024];
        let mut result = Ok(());
        for _ in 0..9 {
            result = parser.feed(&block, &mut out);
        }
        assert_eq!(result, Err(LineTooLong));
    }
}
