//! Finding declarations by name: exact qualified names, unique dotted
//! suffixes (`validate`, `auth.validate`, Go `Service.Run` for
//! `(*example.com/app.Service).Run`), and fuzzy ranking for `find` and for
//! "did you mean" suggestions.

use crate::resolve::{Decl, DeclId, Resolution};

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum LookupError {
    #[error("no declaration matches `{query}`")]
    NotFound {
        query: String,
        suggestions: Vec<String>,
    },
    #[error("`{query}` is ambiguous: {} declarations match", candidates.len())]
    Ambiguous {
        query: String,
        candidates: Vec<String>,
    },
}

/// A name in a comparable form: Go receivers lose their `(*…)` wrapping so
/// `Service.Run` matches `(*example.com/app/svc.Service).Run`.
pub fn normalized(name: &str) -> String {
    let mut s = name.replace("(*", "").replace(['(', ')'], "");
    // Go import paths use `/`; a suffix match treats them like dots.
    s = s.replace('/', ".");
    s
}

fn is_suffix_at_boundary(full: &str, query: &str) -> bool {
    full == query || (full.ends_with(query) && full[..full.len() - query.len()].ends_with('.'))
}

/// Resolve NAME to exactly one declaration. Declarations of the
/// repository come first; only when none matches is NAME looked up among
/// the external callees (`requests.get`, `os.path.join`, `fmt.Println`),
/// so "who calls this library function" has an answer too.
pub fn resolve(res: &Resolution, query: &str) -> Result<DeclId, LookupError> {
    let in_repo = match matching(res, query, false) {
        Ok(d) => return Ok(d),
        Err(e @ LookupError::Ambiguous { .. }) => return Err(e),
        Err(e) => e,
    };
    match matching(res, query, true) {
        Ok(d) => Ok(d),
        Err(e @ LookupError::Ambiguous { .. }) => Err(e),
        Err(LookupError::NotFound { suggestions, .. }) => match in_repo {
            LookupError::NotFound {
                suggestions: mine, ..
            } if mine.is_empty() => Err(LookupError::NotFound {
                query: query.to_owned(),
                suggestions,
            }),
            other => Err(other),
        },
    }
}

/// NAME among the repository's declarations, or (`external`) among the
/// external callees: an exact name, else a unique suffix.
fn matching(res: &Resolution, query: &str, external: bool) -> Result<DeclId, LookupError> {
    let decls = &res.decls;
    if let Some(i) = decls
        .iter()
        .position(|d| &*d.name == query && d.is_external() == external)
    {
        return Ok(DeclId::new(i));
    }
    let q = normalized(query);
    let matches: Vec<DeclId> = decls
        .iter()
        .enumerate()
        .filter(|(_, d)| {
            d.is_external() == external && is_suffix_at_boundary(&normalized(&d.name), &q)
        })
        .map(|(i, _)| DeclId::new(i))
        .collect();
    match matches.len() {
        1 => Ok(matches[0]),
        0 => Err(LookupError::NotFound {
            query: query.to_owned(),
            suggestions: ranked(res, query, 8, external)
                .into_iter()
                .map(|(i, _)| decls[i].name.to_string())
                .collect(),
        }),
        _ => {
            // A module and its `__init__`-style twin, or a Go type and its
            // constructor, are still ambiguous: list them all.
            let mut candidates: Vec<String> =
                matches.iter().map(|&i| decls[i].name.to_string()).collect();
            candidates.sort();
            Err(LookupError::Ambiguous {
                query: query.to_owned(),
                candidates,
            })
        }
    }
}

/// Score how well `query` matches a declaration name (higher is better;
/// `None` when the query's characters do not appear in order).
pub fn score(name: &str, query: &str) -> Option<i64> {
    if query.is_empty() {
        return Some(0);
    }
    let norm = normalized(name).to_lowercase();
    let q = query.to_lowercase();
    let short = norm.rsplit('.').next().unwrap_or(&norm);
    let len_penalty = norm.len() as i64 / 8;
    if short == q {
        return Some(1000 - len_penalty);
    }
    if is_suffix_at_boundary(&norm, &normalized(&q)) {
        return Some(900 - len_penalty);
    }
    if short.starts_with(&q) {
        return Some(800 - len_penalty - (short.len() - q.len()) as i64);
    }
    if short.contains(&q) {
        return Some(700 - len_penalty);
    }
    if norm.contains(&q) {
        return Some(600 - len_penalty);
    }
    // Subsequence: reward consecutive runs and word starts.
    let hay: Vec<char> = norm.chars().collect();
    let mut score = 0i64;
    let mut hi = 0usize;
    let mut prev_match: Option<usize> = None;
    for qc in q.chars() {
        let mut found = None;
        while hi < hay.len() {
            if hay[hi] == qc {
                found = Some(hi);
                hi += 1;
                break;
            }
            hi += 1;
        }
        let pos = found?;
        score += 10;
        if prev_match == Some(pos.wrapping_sub(1)) {
            score += 15;
        }
        if pos == 0 || matches!(hay[pos - 1], '.' | '_') {
            score += 20;
        }
        prev_match = Some(pos);
    }
    Some(score - len_penalty)
}

/// The best `limit` in-repository declarations for a fuzzy query.
pub fn fuzzy(res: &Resolution, query: &str, limit: usize) -> Vec<(DeclId, i64)> {
    ranked(res, query, limit, false)
}

/// The best `limit` declarations of the repository, or (`external`) of
/// the external callees, for a fuzzy query.
fn ranked(res: &Resolution, query: &str, limit: usize, external: bool) -> Vec<(DeclId, i64)> {
    let mut scored: Vec<(DeclId, i64)> = res
        .decls
        .iter()
        .enumerate()
        .filter(|(_, d)| d.is_external() == external && !d.name.is_empty())
        .filter_map(|(i, d): (usize, &Decl)| score(&d.name, query).map(|s| (DeclId::new(i), s)))
        .collect();
    scored.sort_by(|a, b| {
        b.1.cmp(&a.1)
            .then(res.decls[a.0].name.cmp(&res.decls[b.0].name))
    });
    scored.truncate(limit);
    scored
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_match_at_dot_boundaries_only() {
        assert!(is_suffix_at_boundary("shop.auth.validate", "auth.validate"));
        assert!(is_suffix_at_boundary("shop.auth.validate", "validate"));
        assert!(!is_suffix_at_boundary("shop.auth.revalidate", "validate"));
        assert_eq!(
            normalized("(*example.com/app/svc.Service).Run"),
            "example.com.app.svc.Service.Run"
        );
    }

    fn resolution(names: &[(&str, bool)]) -> Resolution {
        Resolution {
            decls: names
                .iter()
                .map(|&(name, external)| Decl {
                    name: name.into(),
                    kind: crate::model::DeclKind::Function,
                    lang: crate::model::Lang::Python,
                    file: (!external).then_some(crate::model::FileId(0)),
                    local: 0,
                    span: Default::default(),
                    is_test: false,
                    parent: None,
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn external_callees_are_found_when_the_repository_has_no_match() {
        let res = resolution(&[
            ("shop.api.get", false),
            ("shop.files.join_all", false),
            ("requests.get", true),
            ("os.path.join", true),
            ("posixpath.join", true),
        ]);
        // The repository's own declaration wins a shared suffix.
        assert_eq!(resolve(&res, "get"), Ok(DeclId(0)));
        assert_eq!(resolve(&res, "requests.get"), Ok(DeclId(2)));
        assert_eq!(resolve(&res, "os.path.join"), Ok(DeclId(3)));
        assert_eq!(resolve(&res, "path.join"), Ok(DeclId(3)));
        // Two external callees share `join`.
        assert!(matches!(
            resolve(&res, "join"),
            Err(LookupError::Ambiguous { candidates, .. })
                if candidates == ["os.path.join", "posixpath.join"]
        ));
        // Suggestions come from the repository first.
        assert!(matches!(
            resolve(&res, "join_al"),
            Err(LookupError::NotFound { suggestions, .. })
                if suggestions[0] == "shop.files.join_all"
        ));
        assert!(matches!(
            resolve(&res, "requests.ge"),
            Err(LookupError::NotFound { suggestions, .. })
                if suggestions == ["requests.get"]
        ));
    }

    #[test]
    fn exact_short_names_outrank_subsequences() {
        let exact = score("shop.auth.tokens.validate_token", "validate_token").unwrap();
        let prefix = score("shop.auth.tokens.validate_token_v2", "validate_token").unwrap();
        let subseq = score("shop.vendor.alpha_lookup", "vtok");
        assert!(exact > prefix);
        assert!(subseq.is_none() || subseq.unwrap() < prefix);
    }
}
