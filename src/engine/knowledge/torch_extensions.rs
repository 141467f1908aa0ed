//! Compiled PyTorch extensions and the package each belongs to (`assets/knowledge/torch_extensions.toml`,
//! a published source per row): the module and folder names that identify apex, flash-attn,
//! xformers, the PyG extensions, mmcv, … in a path or an import, and how each project says to get
//! a build for the installed torch.

use serde::Deserialize;
use std::sync::LazyLock;

/// One package that ships compiled PyTorch extensions.
#[derive(Debug, Clone, Deserialize)]
pub struct TorchExtension {
    pub package: String,
    /// Extension module file stems and package folder names that identify it.
    pub names: Vec<String>,
    pub install: String,
    pub source: String,
}

#[derive(Deserialize)]
struct File {
    extension: Vec<TorchExtension>,
}

static TABLE: LazyLock<Vec<TorchExtension>> = LazyLock::new(|| {
    toml::from_str::<File>(include_str!(
        "../../../assets/knowledge/torch_extensions.toml"
    ))
    .map(|f| f.extension)
    .unwrap_or_default()
});

/// Every row of the table.
pub fn torch_extensions() -> &'static [TorchExtension] {
    &TABLE
}

/// The package one of whose module or folder names is `name` (exact, case-sensitive: Python
/// module names are).
pub fn package_of(name: &str) -> Option<&'static TorchExtension> {
    torch_extensions()
        .iter()
        .find(|row| row.names.iter().any(|n| n == name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_every_row_is_sourced() {
        let rows = torch_extensions();
        assert!(rows.len() >= 10, "{} rows", rows.len());
        for row in rows {
            assert!(row.source.contains("https://"), "{}", row.package);
            assert!(!row.names.is_empty(), "{}", row.package);
            assert!(
                !row.names.iter().any(|n| n == "_C"),
                "{}: a bare _C names no package",
                row.package
            );
        }
        assert_eq!(
            package_of("fused_layer_norm_cuda").map(|r| r.package.as_str()),
            Some("apex")
        );
        assert!(package_of("numpy").is_none());
    }
}
