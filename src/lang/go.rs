//! Go extraction (in progress).
use crate::model::{FileFacts, Lang, LangFacts};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GoFacts {}

pub fn extract(_rel_path: &str, source: &[u8]) -> FileFacts {
    FileFacts {
        lang: Lang::Go,
        decls: vec![],
        calls: vec![],
        strings: vec![],
        syntax_errors: 0,
        lines: super::walk::count_lines(source),
        lang_facts: LangFacts::Go(GoFacts::default()),
    }
}
