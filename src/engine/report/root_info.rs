//! The `tree` report's identity of its root (`root_info`: version, machine, bitness, format; for
//! a PE its side-by-side assemblies and .NET header) and how a bare name was searched for
//! (`root_resolution`). Fields are in the contract's (alphabetical) order.

use crate::engine::binfmt::Format;
use crate::engine::context::SystemContext;
use crate::engine::graph::DependencyGraph;
use crate::engine::loader::sxs::ResolvedAssembly;
use crate::engine::loader::{Attempt, How, Resolution};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The root binary's own identity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RootInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assemblies: Option<Vec<ResolvedAssembly>>,
    pub bits: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clr: Option<ClrRoot>,
    pub format: Format,
    /// The CPU architecture (`x86_64`, `i386`, `aarch64`, …).
    pub machine: String,
    pub version: Option<String>,
}

/// A .NET root: its runtime, platform, whether it is pure IL, the bitness it runs as, and what
/// the environment hands Python.NET.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClrRoot {
    pub il_only: bool,
    pub platform: String,
    /// `PYTHONNET_PYDLL`, `PYTHONNET_RUNTIME`, `PYTHONHOME`, `PYTHONPATH` where set, and the
    /// bitness of the DLL `PYTHONNET_PYDLL` names (`pydll_bits`).
    pub python_env: BTreeMap<String, Value>,
    pub runs: String,
    pub runtime: String,
}

/// How a bare name was searched for, with every place tried.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RootResolution {
    pub attempts: Vec<Attempt>,
    pub how: How,
    pub path: Option<String>,
    pub requested: String,
}

impl RootResolution {
    pub fn of(requested: &str, r: &Resolution) -> RootResolution {
        RootResolution {
            attempts: r.attempts.clone(),
            how: r.how,
            path: r.path.clone(),
            requested: requested.to_string(),
        }
    }
}

impl RootInfo {
    /// The identity of `graph`'s root on the machine `ctx`.
    pub fn of(ctx: &SystemContext, graph: &DependencyGraph) -> RootInfo {
        let info = &graph.root_info;
        let clr = info.clr.as_ref().map(|clr| {
            let is_dll = !graph.root.to_ascii_lowercase().ends_with(".exe");
            ClrRoot {
                il_only: clr.il_only,
                platform: clr.platform.clone(),
                python_env: python_net_env(ctx),
                runs: clr.runs_as(is_dll).to_string(),
                runtime: clr.runtime.clone(),
            }
        });
        RootInfo {
            assemblies: (!graph.assemblies.is_empty()).then(|| graph.assemblies.clone()),
            bits: info.machine.bits,
            clr,
            format: info.format,
            machine: info.machine.arch.clone(),
            version: info.version.version.clone(),
        }
    }
}

/// What a .NET host hands Python.NET to find and start Python: the variables it reads, and the
/// bitness of the python DLL `PYTHONNET_PYDLL` names (it must match the host process's).
fn python_net_env(ctx: &SystemContext) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for var in [
        "PYTHONNET_PYDLL",
        "PYTHONNET_RUNTIME",
        "PYTHONHOME",
        "PYTHONPATH",
    ] {
        if let Some(v) = ctx.env.get(var) {
            out.insert(var.into(), Value::from(v));
        }
    }
    if let Some(dll) = ctx.env.get("PYTHONNET_PYDLL") {
        let bits = ctx
            .fs
            .file(dll)
            .ok()
            .and_then(|host| {
                ctx.fs
                    .binaries()
                    .binary(&host, crate::engine::graph::Reader::HEADERS)
                    .ok()
            })
            .map(|info| info.machine.bits);
        out.insert("pydll_bits".into(), serde_json::json!(bits));
    }
    out
}
