//! The library sets the scan offers to the GPU test: for each CUDA build of a framework, the
//! driver, cudart, cuBLAS and cuDNN files *its* process would load (the names its CUDA family
//! uses, resolved with the loader emulation exactly as the findings resolve them); then each
//! toolkit's own runtime folder. The first set is the wizard's default, so "Run" tests what the
//! user's framework really loads rather than whatever the OS finds first.

use super::results::Role;
use super::select::{Selection, role_version};
use crate::engine::context::{Platform, SystemContext};
use crate::engine::graph::load_list::needed_names;
use crate::engine::graph::process::{self, PresenceProbe, Process};
use crate::engine::inventory::{FrameworkKind, Inventory};
use crate::engine::loader::{FileProbe, Probe};
use std::path::PathBuf;

/// One choice of files to test.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LibrarySet {
    /// "PyTorch 2.1.2 in /home/ana/venvs/ml", "CUDA Toolkit 12.4 (/usr/local/cuda-12.4)".
    pub label: String,
    /// The framework the set belongs to (`None` for a toolkit).
    pub framework: Option<FrameworkKind>,
    #[serde(flatten)]
    pub selection: Selection,
}

/// Every set the inventory supports, frameworks first (in scan order), then toolkits. Roles a
/// process would not find stay `None` (the OS loader's choice), so a set is never invented.
pub fn from_inventory(ctx: &SystemContext, inventory: &Inventory) -> Vec<LibrarySet> {
    let probe = PresenceProbe::new(ctx);
    let mut sets = Vec::new();
    for (env, f) in inventory.frameworks() {
        if f.cuda_build == Some(false) {
            continue;
        }
        let Some(cuda) = f.expects.cuda.as_deref() else {
            continue;
        };
        let names = needed_names(ctx.platform, cuda, f.expects.cudnn.as_deref());
        // A framework that ships its own CUDA libraries (torch\lib) loads them as imports of
        // its extension modules; on Linux the framework loader already starts from that folder.
        let loader = match (&f.bundled_dir, ctx.platform) {
            (Some(dir), Platform::Windows) if !f.bundled_libraries.is_empty() => {
                process::python_extension_loader(ctx, env, dir)
            }
            _ => process::framework_loader(ctx, env, Some(f)),
        };
        let selection = resolve_roles(ctx, &loader, &names, &probe);
        if selection == Selection::default() {
            continue;
        }
        sets.push(LibrarySet {
            label: format!(
                "{} in {}",
                versioned(f.kind.display_name(), f.version.as_deref()),
                env.root
            ),
            framework: Some(f.kind),
            selection,
        });
    }
    let windows = ctx.platform == Platform::Windows;
    for t in &inventory.toolkits {
        let mut selection = Selection::default();
        for role in [Role::Cudart, Role::Cublas, Role::Cudnn] {
            let found = t
                .library_dirs
                .iter()
                .flat_map(|dir| t.libraries.iter().map(move |name| (dir, name)))
                .filter(|(_, name)| role_version(name, role, windows).is_some())
                .map(|(dir, name)| process::join(ctx, dir, name))
                .find(|path| matches!(probe.probe(path), Probe::Binary(_)));
            selection.set(role, found.and_then(|p| host_path(ctx, &p)));
        }
        if selection == Selection::default() {
            continue;
        }
        sets.push(LibrarySet {
            label: format!(
                "{} ({})",
                versioned("CUDA Toolkit", t.version.as_deref()),
                t.root
            ),
            framework: None,
            selection,
        });
    }
    sets
}

/// The driver and the framework's cudart/cuBLAS/cuDNN as `loader` resolves them.
fn resolve_roles(
    ctx: &SystemContext,
    loader: &Process,
    names: &[String],
    probe: &PresenceProbe<'_>,
) -> Selection {
    let windows = ctx.platform == Platform::Windows;
    let mut selection = Selection::default();
    for role in Role::ALL {
        let name = match role {
            Role::Driver => super::select::default_names(role, windows)
                .first()
                .map(|n| n.to_string()),
            _ => names
                .iter()
                .find(|n| role_version(n, role, windows).is_some())
                .cloned(),
        };
        let path = name.and_then(|n| loader.resolve(&n, probe).path);
        selection.set(role, path.and_then(|p| host_path(ctx, &p)));
    }
    selection
}

/// "PyTorch 2.1.2", or the bare name when the version is unknown.
fn versioned(name: &str, version: Option<&str>) -> String {
    match version {
        Some(v) => format!("{name} {v}"),
        None => name.to_string(),
    }
}

/// Where a machine path is on this computer (the same path on a live scan; inside the mapped
/// root for a machine file).
fn host_path(ctx: &SystemContext, machine_path: &str) -> Option<PathBuf> {
    ctx.fs.host_path(machine_path).ok()
}
