//! Everything ripple keeps about one source file: the declarations and call
//! sites every language has, and the flow facts only its own resolver reads.
//! These sit above [`crate::model`] because the flow facts are each
//! extractor's own types.

use serde::{Deserialize, Serialize};

use super::go::GoFacts;
use super::python::PyFacts;
use crate::model::{CallSite, Lang, LocalDecl, StringTable, Sym};

/// Language-specific facts that resolution needs beyond declarations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum LangFacts {
    Python(PyFacts),
    Go(GoFacts),
}

impl LangFacts {
    /// No flow facts: what a file carries once resolution no longer needs them.
    pub fn empty(lang: Lang) -> LangFacts {
        match lang {
            Lang::Python => LangFacts::Python(PyFacts::default()),
            Lang::Go => LangFacts::Go(GoFacts::default()),
        }
    }

    pub fn lang(&self) -> Lang {
        match self {
            LangFacts::Python(_) => Lang::Python,
            LangFacts::Go(_) => Lang::Go,
        }
    }
}

/// Everything ripple keeps about one source file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileFacts {
    pub lang: Lang,
    pub decls: Vec<LocalDecl>,
    pub calls: Vec<CallSite>,
    /// File-local string table that `Sym`s index.
    pub strings: StringTable,
    pub syntax_errors: u32,
    pub lines: u32,
    pub lang_facts: LangFacts,
}

impl FileFacts {
    pub fn sym(&self, s: Sym) -> &str {
        self.strings.get(s).unwrap_or("")
    }
}
