//! Core nouns shared by every layer: languages, spans, declarations, call
//! sites, edges and their confidence. Per-file facts (`lang::FileFacts`) are what
//! the extractors produce and the store caches; they use file-local indices and
//! a file-local string table so that a file's facts never depend on any other
//! file (that is what makes parsing incremental while resolution stays global).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Lang {
    Python,
    Go,
}

impl Lang {
    pub fn from_path(path: &str) -> Option<Lang> {
        if path.ends_with(".py") {
            Some(Lang::Python)
        } else if path.ends_with(".go") {
            Some(Lang::Go)
        } else {
            None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::Go => "go",
        }
    }
}

/// A region of a file. Lines are 1-based and inclusive, bytes are a half-open range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Span {
    pub start_byte: u32,
    pub end_byte: u32,
    pub start_line: u32,
    pub end_line: u32,
}

impl Span {
    pub fn of(node: &tree_sitter::Node) -> Span {
        Span {
            start_byte: node.start_byte() as u32,
            end_byte: node.end_byte() as u32,
            start_line: node.start_position().row as u32 + 1,
            end_line: node.end_position().row as u32 + 1,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DeclKind {
    Module,
    Package,
    Class,
    Struct,
    Interface,
    Type,
    Function,
    Method,
    Lambda,
    Closure,
}

impl DeclKind {
    pub fn name(self) -> &'static str {
        match self {
            DeclKind::Module => "module",
            DeclKind::Package => "package",
            DeclKind::Class => "class",
            DeclKind::Struct => "struct",
            DeclKind::Interface => "interface",
            DeclKind::Type => "type",
            DeclKind::Function => "function",
            DeclKind::Method => "method",
            DeclKind::Lambda => "lambda",
            DeclKind::Closure => "closure",
        }
    }

    /// Whether code can run "inside" this declaration, making it a caller.
    pub fn is_callable(self) -> bool {
        matches!(
            self,
            DeclKind::Module
                | DeclKind::Package
                | DeclKind::Function
                | DeclKind::Method
                | DeclKind::Lambda
                | DeclKind::Closure
        )
    }

    pub fn is_type(self) -> bool {
        matches!(
            self,
            DeclKind::Class | DeclKind::Struct | DeclKind::Interface | DeclKind::Type
        )
    }
}

/// How sure we are that a call site reaches a callee.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
pub enum Confidence {
    /// Resolved by scope, import or declared type.
    #[default]
    Certain,
    /// Resolved through a simple local inference (an assignment, a field, a parameter).
    Likely,
    /// Dynamic dispatch or several candidates: any of them may be the callee.
    Possible,
}

impl Confidence {
    pub fn name(self) -> &'static str {
        match self {
            Confidence::Certain => "certain",
            Confidence::Likely => "likely",
            Confidence::Possible => "possible",
        }
    }

    pub fn parse(s: &str) -> Option<Confidence> {
        match s {
            "certain" => Some(Confidence::Certain),
            "likely" => Some(Confidence::Likely),
            "possible" => Some(Confidence::Possible),
            _ => None,
        }
    }
}

/// Index of a string in a file's string table.
pub type Sym = u32;

/// A file's interned strings in one buffer. As a `Vec<String>` each string
/// cost 24 bytes of header and an allocation of its own (most are names of
/// a few bytes), a tenth of what a large repository's facts held. Stored
/// as a sequence of strings, as the vector was.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StringTable {
    text: String,
    /// Where each string ends in `text`; string `i` starts where `i - 1` ends.
    ends: Vec<u32>,
}

impl StringTable {
    pub fn push(&mut self, s: &str) -> Sym {
        self.text.push_str(s);
        self.ends.push(self.text.len() as u32);
        (self.ends.len() - 1) as Sym
    }

    pub fn get(&self, sym: Sym) -> Option<&str> {
        let i = sym as usize;
        let end = *self.ends.get(i)? as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        self.text.get(start..end)
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.ends.len()).map(|i| self.get(i as Sym).unwrap_or(""))
    }

    /// Gives back the spare capacity the table grew while being filled.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

impl Serialize for StringTable {
    fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for StringTable {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Strings;
        impl<'de> serde::de::Visitor<'de> for Strings {
            type Value = StringTable;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a sequence of strings")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<StringTable, A::Error> {
                let mut table = StringTable::default();
                while let Some(s) = seq.next_element::<std::borrow::Cow<'de, str>>()? {
                    table.push(&s);
                }
                table.shrink_to_fit();
                Ok(table)
            }
        }
        deserializer.deserialize_seq(Strings)
    }
}

/// A declaration as the extractor sees it: named relative to its file
/// (`Class.method`, `func.<lambda1>`, Go `(*T).M`). The resolver prefixes the
/// module or import path, which depends on the rest of the repository.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LocalDecl {
    pub local_name: String,
    pub kind: DeclKind,
    pub span: Span,
    /// Enclosing declaration (index into the same file's decls).
    pub parent: Option<u32>,
    pub signature: String,
    pub doc: Option<String>,
    pub body_hash: u64,
    pub is_test: bool,
}

/// A call expression as written, for display and for the unresolved list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallSite {
    /// The declaration the call is inside (index into the file's decls).
    pub caller: u32,
    /// Callee text as written (`self.repo.save`, `auth.Validate`).
    pub callee_text: String,
    pub span: Span,
    pub arg_count: u16,
}

/// A declaration's index in the resolved table ([`Decl`]s of all files, then
/// external leaves). Serialized as the bare number, so stored graphs and JSON
/// output do not depend on the wrapper.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct DeclId(pub u32);

/// A file's index in the repository's files table (`Index::files`, and every
/// per-file vector of a resolution). Serialized as the bare number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FileId(pub u32);

macro_rules! index_newtype {
    ($id:ident) => {
        impl $id {
            pub fn new(i: usize) -> Self {
                $id(i as u32)
            }

            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl std::fmt::Display for $id {
            fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

index_newtype!(DeclId);
index_newtype!(FileId);

impl std::ops::Index<DeclId> for [Decl] {
    type Output = Decl;
    fn index(&self, d: DeclId) -> &Decl {
        &self[d.index()]
    }
}

impl std::ops::Index<DeclId> for Vec<Decl> {
    type Output = Decl;
    fn index(&self, d: DeclId) -> &Decl {
        &self[d.index()]
    }
}

/// One declaration of the repository (or an external leaf).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Decl {
    pub name: std::sync::Arc<str>,
    pub kind: DeclKind,
    pub lang: Lang,
    /// Index into the files table; `None` for external leaves.
    pub file: Option<FileId>,
    /// Index into the file's `decls`.
    pub local: u32,
    pub span: Span,
    pub is_test: bool,
    pub parent: Option<DeclId>,
}

impl Decl {
    pub fn is_external(&self) -> bool {
        self.file.is_none()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Edge {
    pub caller: DeclId,
    pub callee: DeclId,
    pub confidence: Confidence,
    /// The call site: (file index, index into the file's calls).
    pub file: FileId,
    pub call: u32,
}

/// Stable 64-bit content hash (xxh3) used for file contents and declaration bodies.
pub fn content_hash(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// [`content_hash`] of the concatenation of `parts`, without building it.
pub fn content_hash_of(parts: &[&str]) -> u64 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    for part in parts {
        hasher.update(part.as_bytes());
    }
    hasher.digest()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashing_parts_equals_hashing_their_concatenation() {
        let parts = ["def f():\n", "", &"x".repeat(5000), "    pass\n"];
        assert_eq!(
            content_hash_of(&parts),
            content_hash(parts.concat().as_bytes())
        );
    }
}
