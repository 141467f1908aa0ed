//! Whether a library a framework's closure misses is one of the framework's own files: the
//! RECORD of its installed dist-info — the list of the wheel's files pip writes at install
//! (https://packaging.python.org/en/latest/specifications/recording-installed-packages/) —
//! names it inside the framework's package folder (torch 2.5.1's Windows wheel:
//! `torch/lib/libiomp5md.dll`, which torch_cpu.dll and fbgemm.dll import). Such a miss is the
//! framework's own install being incomplete, whatever its CUDA flavour, and the fix is the
//! framework's reinstall at the version its dist-info names.

use crate::engine::context::SystemContext;
use crate::engine::inventory::Framework;
use crate::engine::scan::version_clues::{from_dist_info, normalise_dist_name};

/// Larger than any framework's RECORD (torch 2.5.1's: about 1.5 MB).
const RECORD_LIMIT: u64 = 16 << 20;

/// A file of the framework's own wheel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnFile {
    /// The RECORD's path of the file (`torch/lib/libiomp5md.dll`).
    pub member: String,
    /// The RECORD that lists it.
    pub record: String,
    /// The installed distribution's version, as its dist-info folder names it (`2.5.1`; PyTorch's
    /// own index gives `2.5.1+cpu`).
    pub version: String,
}

/// The RECORD entry of `lib` under the framework's package folder, when its dist-info lists one.
pub fn own_file(ctx: &SystemContext, fw: &Framework, lib: &str) -> Option<OwnFile> {
    let p = ctx.platform;
    let package_dir = p.file_name(&fw.location).to_string();
    let (dist_info, version) = fw.evidence.iter().find_map(|e| {
        let (name, version) = from_dist_info(p.file_name(e))?;
        (name == normalise_dist_name(&fw.package)).then(|| (e.clone(), version))
    })?;
    let record = p.join(&dist_info, "RECORD");
    let text = ctx.fs.read_to_string(&record, RECORD_LIMIT).ok()?;
    let member = text.lines().find_map(|line| {
        let path = line.split(',').next()?.trim_matches('"');
        let (top, _) = path.split_once('/')?;
        let name = path.rsplit('/').next()?;
        (p.same_name(top, &package_dir) && p.same_name(name, lib)).then(|| path.to_string())
    })?;
    Some(OwnFile {
        member,
        record,
        version,
    })
}
