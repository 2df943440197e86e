//! The package clause and import specs (a dot import's local name is `.`,
//! an unaliased one is known by its path's last element).

use super::{Child, Extractor, Frame, GRAMMAR, K, Lowered, kids};
use tree_sitter::Node;

impl Extractor<'_> {
    /// Lowers an import spec or the package clause (one group of `lower`'s
    /// arms, in their order).
    pub(super) fn lower_import(
        &mut self,
        node: Node,
        frame: &Frame,
        children: &[Child],
    ) -> Lowered {
        let g = &*GRAMMAR;
        match frame.kind {
            K::ImportSpec => {
                let path = match Self::field(children, g.f_path) {
                    Some(Lowered::Str(p)) => p,
                    _ => return Lowered::None,
                };
                let path_text = self.strings.get(path).to_owned();
                // `import . "pkg"` puts pkg's exported names in file scope;
                // resolution looks them up under the local name ".".
                let dot = node
                    .child_by_field_name("name")
                    .is_some_and(|n| n.kind() == "dot");
                let local = match Self::field(children, g.f_name) {
                    _ if dot => self.strings.intern("."),
                    Some(Lowered::Name(n)) => n,
                    _ => self.strings.intern(default_import_name(&path_text)),
                };
                self.facts.imports.push((local, path));
                Lowered::None
            }
            K::PackageClause => {
                if let Some(Lowered::Name(n)) = kids(children).into_iter().next() {
                    self.facts.package = n;
                }
                Lowered::None
            }
            _ => Lowered::None,
        }
    }
}

/// The name an import without an alias is known by when the imported
/// package's own clause is not at hand (it is outside the repository):
/// the path's last element, without a version (`gopkg.in/yaml.v3` is
/// `yaml`, `foo/v2` is `foo`).
pub(crate) fn default_import_name(path: &str) -> &str {
    let mut parts = path.rsplit('/');
    let last = parts.next().unwrap_or(path);
    if last.len() > 1 && last.starts_with('v') && last[1..].chars().all(|c| c.is_ascii_digit()) {
        parts.next().unwrap_or(last)
    } else {
        last.split('.').next().unwrap_or(last)
    }
}
