//! Go resolution (in progress).
use super::{Builder, SourceFile};
use std::collections::HashMap;
pub fn package_paths(_files: &[SourceFile], _go: &[u32]) -> HashMap<u32, String> {
    HashMap::new()
}
pub fn qualified_name(pkg: &str, local: &str) -> String {
    format!("{pkg}.{local}")
}
pub fn resolve(_b: &mut Builder, _files: &[SourceFile], _go: &[u32]) {}
