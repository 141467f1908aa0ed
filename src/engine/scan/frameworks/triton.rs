//! Triton (torch.compile's GPU compiler): the ptxas binaries it would run, in its own order —
//! `TRITON_PTXAS_PATH` when that names a file, then the copy its wheel bundles
//! (`triton/backends/nvidia/bin/ptxas` from 3.0, `triton/third_party/cuda/bin/ptxas` in 2.x) —
//! each with the version embedded in the binary. Source: triton-lang/triton
//! `third_party/nvidia/backend/compiler.py` at v3.1.0 (`_path_to_binary`: the variable, then
//! `bin/` beside the backend; the first existing file wins) and `python/triton/common/backend.py`
//! at v2.1.0 (`path_to_ptxas`).

use super::Site;
use crate::engine::inventory::{PythonEnv, TritonPtxas, TritonPtxasChoice};
use crate::engine::scan::tools;
use crate::engine::scan::walker::Walker;

/// Fills `env.triton_ptxas` when `site` holds Triton (Linux wheels only ship it).
pub(super) fn read(w: &mut Walker, site: &Site, env: &mut PythonEnv, run_tools: bool) {
    let Some((_, version, _)) = site.dist("triton") else {
        return;
    };
    let Some(dir) = site.dir("triton") else {
        return;
    };
    let version = version.clone();
    let mut found = Vec::new();
    if let Some(var) = w.ctx.env.get("TRITON_PTXAS_PATH").filter(|v| !v.is_empty()) {
        let path = w.platform().normalize(var.trim());
        if w.is_file(&path) {
            found.push(TritonPtxas {
                triton: version.clone(),
                how: TritonPtxasChoice::Variable,
                tool: tools::tool_info(w, &path, run_tools),
            });
        }
    }
    for rel in ["backends/nvidia/bin/ptxas", "third_party/cuda/bin/ptxas"] {
        let path = w.join(&dir, rel);
        if w.is_file(&path) {
            found.push(TritonPtxas {
                triton: version.clone(),
                how: TritonPtxasChoice::Bundled,
                tool: tools::tool_info(w, &path, run_tools),
            });
            break;
        }
    }
    env.triton_ptxas = found;
}
