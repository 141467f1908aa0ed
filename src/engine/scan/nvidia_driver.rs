//! Driver and GPUs: NVML's facts from the context, plus the driver's user-mode libraries on
//! disk (`nvcuda.dll`/`nvml.dll` in System32; `libcuda.so.1`/`libnvidia-ml.so.1` in the
//! loader's folders, WSL's `/usr/lib/wsl/lib`). Without NVML, a `libcuda.so.<version>` file
//! name still tells the driver version. Driver-owned names: NVIDIA/cuda-python's
//! cuda_pathfinder `descriptor_catalog.py` (`packaged_with="driver"`); WSL: microsoft/WSL#8587.

use super::version_clues;
use super::walker::Walker;
use crate::engine::context::{ContextSource, Platform};
use crate::engine::inventory::DriverInventory;

/// Folders where the Linux driver's libraries usually live (plus ld.so.conf and LD_LIBRARY_PATH).
const LINUX_DIRS: &[&str] = &[
    "/usr/lib/wsl/lib",
    "/usr/lib/x86_64-linux-gnu",
    "/lib/x86_64-linux-gnu",
    "/usr/lib64",
    "/lib64",
    "/usr/lib",
    "/lib",
];

pub fn scan(w: &mut Walker) -> DriverInventory {
    let ctx = w.ctx;
    let mut d = DriverInventory {
        gpus: ctx.gpus.clone(),
        note: ctx.driver_note.clone(),
        ..Default::default()
    };
    if let Some(facts) = &ctx.driver {
        d.version = Some(facts.version.clone());
        d.cuda = facts.cuda.clone();
        d.version_source = Some(
            match ctx.source {
                ContextSource::Live => "nvml",
                ContextSource::MachineFile(_) => "machine file",
                ContextSource::Report(_) => "report",
            }
            .into(),
        );
    }
    match ctx.platform {
        Platform::Windows => {
            for dir in [r"C:\Windows\System32", r"C:\Windows\SysWOW64"] {
                for name in ["nvcuda.dll", "nvml.dll"] {
                    let f = ctx.platform.join(dir, name);
                    if w.is_file(&f) {
                        d.libraries.push(f);
                    }
                }
            }
        }
        Platform::Linux => {
            let mut dirs: Vec<String> = LINUX_DIRS.iter().map(|s| s.to_string()).collect();
            dirs.extend(ld_conf_dirs(w));
            if let Some(v) = ctx.env.get("LD_LIBRARY_PATH") {
                dirs.extend(
                    ctx.platform
                        .split_list(v)
                        .into_iter()
                        .filter(|e| e.starts_with('/')),
                );
            }
            let mut seen = Vec::new();
            for dir in dirs {
                let dir = ctx.platform.normalize(&dir);
                if seen.contains(&dir) {
                    continue;
                }
                seen.push(dir.clone());
                if w.should_stop(&dir) {
                    break;
                }
                for e in w.list(&dir) {
                    let n = e.name.as_str();
                    if n == "libcuda.so.1" || n == "libnvidia-ml.so.1" {
                        d.libraries.push(e.path.clone());
                    }
                    if d.version.is_none()
                        && let Some(v) = version_clues::from_libcuda_name(n)
                    {
                        d.version = Some(v);
                        d.version_source = Some(format!("libcuda file name ({})", e.path));
                    }
                }
            }
            if ctx.wsl && w.is_dir("/usr/lib/wsl/lib") {
                d.wsl_lib_dir = Some("/usr/lib/wsl/lib".into());
            }
        }
    }
    d
}

/// Folders named in /etc/ld.so.conf and /etc/ld.so.conf.d/*.conf (one level of `include`).
fn ld_conf_dirs(w: &mut Walker) -> Vec<String> {
    let mut files = vec!["/etc/ld.so.conf".to_string()];
    files.extend(
        w.list("/etc/ld.so.conf.d")
            .into_iter()
            .filter(|e| e.name.ends_with(".conf"))
            .map(|e| e.path),
    );
    let mut dirs = Vec::new();
    for f in files {
        let Some(text) = w.read_text(&f, 64 << 10) else {
            continue;
        };
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.starts_with('/') {
                dirs.push(line.to_string());
            }
        }
    }
    dirs
}
