//! Names found in a file's text, without parsing it: the identifier a
//! declaration is named by and the one a call names its callee by. They
//! answer for nearly every declaration and call; the tree is parsed only
//! when they find nothing (a callee reached through an index, a call's
//! result, an operator).

use std::ops::Range;

use crate::model::{DeclKind, Lang, Span};

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// Where `word` occurs as a whole identifier in `source[range]`.
fn whole_words<'a>(
    source: &'a [u8],
    range: Range<usize>,
    word: &'a str,
) -> impl Iterator<Item = usize> + 'a {
    let text = &source[range.clone()];
    let w = word.as_bytes();
    let mut from = 0;
    std::iter::from_fn(move || {
        while !w.is_empty() && from + w.len() <= text.len() {
            let at = from + text[from..].windows(w.len()).position(|x| x == w)?;
            from = at + 1;
            let before = at.checked_sub(1).map(|i| text[i]);
            let after = text.get(at + w.len()).copied();
            if !before.is_some_and(is_ident_byte) && !after.is_some_and(is_ident_byte) {
                return Some(range.start + at);
            }
        }
        None
    })
}

/// The word before `at`, skipping whitespace.
fn previous_token(source: &[u8], at: usize) -> &[u8] {
    let mut end = at;
    while end > 0 && source[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    if end > 0 && !is_ident_byte(source[end - 1]) {
        return &source[end - 1..end];
    }
    let mut start = end;
    while start > 0 && is_ident_byte(source[start - 1]) {
        start -= 1;
    }
    &source[start..end]
}

/// `NAME` in `def NAME`, `class NAME`, `func NAME`, `func (r T) NAME`,
/// `type NAME` or a type spec that starts with it; Go's `package NAME`.
pub(super) fn definition_name(
    source: &[u8],
    lang: Lang,
    kind: DeclKind,
    span: Span,
    short: &str,
) -> Option<Range<usize>> {
    if lang == Lang::Go && matches!(kind, DeclKind::Package | DeclKind::Module) {
        let mut offset = 0;
        for line in source.split(|&b| b == b'\n') {
            if let Some(rest) = line.strip_prefix(b"package ") {
                let skip = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
                let len = rest[skip..]
                    .iter()
                    .take_while(|&&b| is_ident_byte(b))
                    .count();
                let start = offset + b"package ".len() + skip;
                return (len > 0).then(|| start..start + len);
            }
            offset += line.len() + 1;
        }
        return None;
    }
    let start = (span.start_byte as usize).min(source.len());
    let end = (span.end_byte as usize).clamp(start, source.len());
    whole_words(source, start..end, short)
        .find(|&at| {
            at == start
                || matches!(
                    previous_token(source, at),
                    b"def" | b"class" | b"func" | b"type" | b")"
                )
        })
        .map(|at| at..at + short.len())
}

/// The last identifier of the callee as written (`method` of
/// `self.repo.method`), when the call's text starts with it.
pub(super) fn callee_name(source: &[u8], span: Span, callee_text: &str) -> Option<Range<usize>> {
    if callee_text.is_empty()
        || !callee_text.bytes().all(|b| is_ident_byte(b) || b == b'.')
        || callee_text.ends_with('.')
    {
        return None;
    }
    let start = span.start_byte as usize;
    let end = start.checked_add(callee_text.len())?;
    if source.get(start..end)? != callee_text.as_bytes()
        || source.get(end).copied().is_some_and(is_ident_byte)
    {
        return None;
    }
    let last = callee_text.rfind('.').map_or(0, |i| i + 1);
    Some(start + last..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(start: usize, end: usize) -> Span {
        Span {
            start_byte: start as u32,
            end_byte: end as u32,
            start_line: 1,
            end_line: 1,
        }
    }

    #[test]
    fn a_definition_is_named_after_its_keyword_not_in_a_decorator() {
        let src = b"@cache(maxsize=area)\nasync def area(self):\n    return area\n";
        let r = definition_name(
            src,
            Lang::Python,
            DeclKind::Method,
            span(0, src.len()),
            "area",
        )
        .unwrap();
        assert_eq!(&src[r.clone()], b"area");
        assert_eq!(r.start, 31);
        let go = b"// Quote quotes.\nfunc (s *Service) Quote(x int) {}\n";
        let r =
            definition_name(go, Lang::Go, DeclKind::Method, span(0, go.len()), "Quote").unwrap();
        assert_eq!(r.start, go.windows(6).position(|w| w == b"Quote(").unwrap());
        let pkg = b"// Package a does.\npackage a_b // x\n";
        let r = definition_name(pkg, Lang::Go, DeclKind::Package, span(0, 0), "init").unwrap();
        assert_eq!(&pkg[r], b"a_b");
    }

    #[test]
    fn a_callee_is_the_last_identifier_of_what_is_written() {
        let src = b"x = self.repo.save(item)";
        let r = callee_name(src, span(4, src.len()), "self.repo.save").unwrap();
        assert_eq!(&src[r], b"save");
        // Written otherwise than recorded: left to the tree.
        assert!(callee_name(src, span(4, src.len()), "repo.save").is_none());
        assert!(callee_name(b"fs[0](x)", span(0, 8), "fs[0]").is_none());
        assert!(callee_name(b"savex()", span(0, 7), "save").is_none());
    }
}
