//! WSL 2: the Windows NVIDIA driver exposes `libcuda.so.1` in `/usr/lib/wsl/lib` (a read-only
//! share of `C:\Windows\System32\lxss\lib`), which WSL lists in `/etc/ld.so.conf.d/ld.wsl.conf`.
//! Two ways it goes wrong inside the distribution: a Linux `libcuda.so.1` (a Linux driver or a
//! CUDA package that brought one, or a copied file) is found before it, or `/usr/lib/wsl/lib` is
//! not searched at all (`[automount] ldconfig = false` in `/etc/wsl.conf`, the conf file
//! removed). NVIDIA: "users must not install any NVIDIA GPU Linux driver within WSL 2"
//! (CUDA on WSL User Guide, linked from `finding_docs.toml`).

use super::RuleInput;
use super::containers::driver_library;
use crate::engine::context::runs_in::RunsIn;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, PathEdit, Severity};
use crate::engine::graph::process::attempts_evidence;
use crate::engine::loader::How;

const WSL_LIB: &str = "/usr/lib/wsl/lib";

pub fn check(input: &RuleInput) -> Vec<Finding> {
    let ctx = input.ctx;

    let runs_in = RunsIn::detect(ctx);
    let Some(wsl) = &runs_in.wsl else {
        return Vec::new();
    };
    let windows_lib = format!("{WSL_LIB}/libcuda.so.1");
    if wsl.version != 2 || !ctx.fs.is_file(&windows_lib) {
        return Vec::new();
    }
    let lib = driver_library(ctx, "libcuda.so.1");
    let mut f = match lib.resolution.path.as_deref() {
        Some(p) if p.starts_with(WSL_LIB) => return Vec::new(),
        Some(p) => shadowed(p, lib.version.as_deref(), lib.resolution.how),
        None => not_searched(),
    };
    f = f.with_evidence(Evidence::at(
        "file",
        "the Windows driver's libcuda.so.1 is there",
        windows_lib,
    ));
    f.evidence
        .extend(attempts_evidence(&lib.process, &lib.resolution));
    vec![f]
}

fn shadowed(path: &str, version: Option<&str>, how: How) -> Finding {
    let what = version
        .map(|v| format!("a Linux driver's libcuda ({v})"))
        .unwrap_or_else(|| "a copy of libcuda".into());
    let mut f = Finding::new(
        codes::WSL_LIBCUDA_SHADOWED,
        Severity::Error,
        format!("libcuda.so.1 is loaded from {path}, not from WSL's {WSL_LIB}"),
        format!(
            "Under WSL 2 the CUDA driver is the Windows one, exposed as {WSL_LIB}/libcuda.so.1. The loader finds {what} at {path} first (through {}); a Linux driver cannot talk to the GPU from WSL, so CUDA fails to initialise (no CUDA-capable device, or error 100/999). NVIDIA: do not install a Linux NVIDIA driver inside WSL 2.",
            how.as_str()
        ),
    )
    .with_libraries(["libcuda.so.1"])
    .with_fix(FixRef {
        id: format!("remove-linux-libcuda:{path}"),
        kind: FixKind::Manual,
        summary: format!("Remove the Linux copy: find its package with dpkg -S {path} and remove it (sudo apt-get remove --purge <package>; a Linux driver or cuda-drivers package), or delete the copied file; then sudo ldconfig. Install CUDA in WSL with NVIDIA's WSL-Ubuntu cuda-toolkit package, which carries no driver"),
    });
    if how == How::LdLibraryPath {
        let dir = path.rsplit_once('/').map_or("/", |(d, _)| d);
        f = f.with_fix(FixRef {
            id: format!("ld-library-path-prepend:{WSL_LIB}"),
            kind: FixKind::path(PathEdit::add("LD_LIBRARY_PATH", WSL_LIB, true)),
            summary: format!("Put {WSL_LIB} before {dir} on LD_LIBRARY_PATH"),
        });
    }
    f
}

fn not_searched() -> Finding {
    Finding::new(
        codes::WSL_LIB_NOT_SEARCHED,
        Severity::Error,
        format!("WSL's {WSL_LIB} is not searched: libcuda.so.1 is not found"),
        format!(
            "The Windows driver's libcuda.so.1 is in {WSL_LIB}, but neither LD_LIBRARY_PATH nor the loader cache lists that folder. WSL adds it through /etc/ld.so.conf.d/ld.wsl.conf and ldconfig at start-up, unless /etc/wsl.conf says [automount] ldconfig = false or the file was removed."
        ),
    )
    .with_libraries(["libcuda.so.1"])
    .with_fix(FixRef {
        id: format!("ld-library-path-append:{WSL_LIB}"),
        kind: FixKind::path(PathEdit::add("LD_LIBRARY_PATH", WSL_LIB, false)),
        summary: format!("Add {WSL_LIB} to LD_LIBRARY_PATH"),
    })
    .with_fix(FixRef {
        id: "wsl-ldconfig".into(),
        kind: FixKind::Manual,
        summary: format!("Or list it for the loader: echo {WSL_LIB} | sudo tee /etc/ld.so.conf.d/ld.wsl.conf && sudo ldconfig (and remove ldconfig = false from /etc/wsl.conf)"),
    })
}
