//! Where else a library is on the machine, and which other majors of it are installed: the
//! folders the inventory knows (toolkits, CUPTI, cuDNN, wheels, bundled copies) plus
//! `loader::locate`'s well-known install roots.

use crate::engine::context::SystemContext;
use crate::engine::inventory::Inventory;
use crate::engine::knowledge::{LibraryIdentity, identify_library};
use crate::engine::loader::locate::{Locator, locate};

/// Every library folder the inventory knows.
pub fn inventory_dirs(inv: &Inventory) -> Vec<String> {
    let mut dirs = Vec::new();
    for t in &inv.toolkits {
        dirs.extend(t.library_dirs.iter().cloned());
        dirs.extend(t.bin_dirs.iter().cloned());
        dirs.extend(t.cupti.as_ref().map(|c| c.dir.clone()));
    }
    for c in &inv.cudnn {
        dirs.extend(c.library_dirs.iter().cloned());
    }
    for e in &inv.python_envs {
        dirs.extend(e.nvidia_lib_dirs.iter().map(|d| d.dir.clone()));
        dirs.extend(e.frameworks.iter().filter_map(|f| f.bundled_dir.clone()));
    }
    dirs
}

/// Every copy of `name` on the machine (machine paths).
pub fn copies_of(ctx: &SystemContext, inv: &Inventory, name: &str) -> Vec<String> {
    locate(ctx, name, &inventory_dirs(inv))
}

/// Every library file in the inventory's folders with its identity, and the folders copies are
/// looked for in, each worked out once per rules run (a machine with 20 environments and
/// thousands of libraries must not be listed or walked again per question).
pub struct KnownLibraries {
    files: Vec<(LibraryIdentity, String)>,
    locator: Locator,
}

impl KnownLibraries {
    pub fn new(ctx: &SystemContext, inv: &Inventory) -> KnownLibraries {
        let mut files: Vec<(LibraryIdentity, String)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut dirs = inventory_dirs(inv);
        let locator = Locator::new(ctx, &dirs);
        dirs.sort();
        dirs.dedup();
        for dir in dirs {
            let Ok(entries) = ctx.fs.read_dir(&dir) else {
                continue;
            };
            for e in entries.into_iter().filter(|e| !e.is_dir) {
                if let Some(id) = identify_library(&e.name)
                    && seen.insert(e.path.clone())
                {
                    files.push((id, e.path));
                }
            }
        }
        KnownLibraries { files, locator }
    }

    /// Every copy of `name` on the machine, as `copies_of` finds them.
    pub fn copies_of(&self, ctx: &SystemContext, name: &str) -> Vec<String> {
        self.locator.find(ctx, name)
    }

    /// Libraries of the same component with another version family, present on the machine
    /// (`cublas64_12.dll` when `cublas64_11.dll` is asked for), with their paths.
    pub fn other_majors(&self, wanted: &LibraryIdentity) -> Vec<(LibraryIdentity, String)> {
        self.files
            .iter()
            .filter(|(id, _)| {
                id.component == wanted.component
                    && id.platform == wanted.platform
                    && id.version_family != wanted.version_family
                    && !id.file.eq_ignore_ascii_case(&wanted.file)
                    && id.version_family != "unversioned"
            })
            .cloned()
            .collect()
    }
}
