//! A missing file the loader needs (`zlibwapi.dll` beside cuDNN 8), copied from a file the
//! user already has or picks — never downloaded. The source must be a PE/ELF binary of the
//! bitness the fix names (`x64` = x86_64, `x86` = i386); anything else is refused.

use super::FixError;
use super::plan::{Change, Operation, Scope};
use super::planner::read_machine_file;
use crate::engine::binfmt;
use crate::engine::context::SystemContext;
use crate::engine::findings::CopyFile;

fn arch_of(machine: &str) -> &str {
    match machine {
        "x64" | "amd64" => "x86_64",
        "x86" => "i386",
        other => other,
    }
}

/// Checks that `bytes` (from `source`) is a binary for `machine`.
fn check_bitness(bytes: &[u8], source: &str, machine: &str) -> Result<(), FixError> {
    let info = binfmt::parse_bytes(bytes, source)
        .map_err(|e| FixError::Refused(format!("{source} is not a usable library: {e}")))?;
    if info.machine.arch != arch_of(machine) {
        return Err(FixError::Refused(format!(
            "{source} is built for {} ({}-bit); this fix needs a {machine} file",
            info.machine.arch, info.machine.bits
        )));
    }
    Ok(())
}

/// The operation that copies the chosen source into the destination folder.
pub fn operation(
    ctx: &SystemContext,
    copy: &CopyFile,
    chosen: Option<&str>,
) -> Result<Operation, FixError> {
    let p = ctx.platform;
    let dest = p.join(&copy.dest_dir, &copy.file_name);
    let mut tried = Vec::new();
    let sources: Vec<&str> = match chosen {
        Some(c) => vec![c],
        None => copy.candidates.iter().map(String::as_str).collect(),
    };
    for source in sources {
        let Some(bytes) = read_machine_file(ctx, source)? else {
            tried.push(format!("{source}: does not exist"));
            continue;
        };
        match check_bitness(&bytes, source, &copy.machine) {
            Ok(()) => {
                let before = read_machine_file(ctx, &dest)?;
                return Ok(Operation {
                    scope: Scope::Machine,
                    what: format!(
                        "Copy {} ({}) into {}",
                        copy.file_name, copy.machine, copy.dest_dir
                    ),
                    change: Change::File {
                        path: dest,
                        before,
                        after: Some(bytes),
                        copied_from: Some(source.to_string()),
                    },
                });
            }
            Err(e) if chosen.is_some() => return Err(e),
            Err(e) => tried.push(e.to_string()),
        }
    }
    Err(FixError::NeedsInput(format!(
        "choose a {} {} to copy (--from FILE){}",
        copy.machine,
        copy.file_name,
        if tried.is_empty() {
            String::new()
        } else {
            format!("; not usable: {}", tried.join("; "))
        }
    )))
}
