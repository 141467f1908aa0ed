//! Cargo's build script (`package.build` points here, so the top level keeps to the project's
//! files). Two jobs, each for one target:
//! - Linux: links the executable as non-PIE. A PIE of this size carries ~52,000 relative
//!   relocations that ld.so applies at every start, copy-on-writing ~300 pages of
//!   `.data.rel.ro`: about 1 ms of the `tree` command's ~2 ms process start (measured with
//!   `perf stat` and `LD_DEBUG=statistics`). Only the binaries are affected.
//! - Windows: embeds the icon (`assets/icon/cuda-triage.ico`) and a version resource (product
//!   name, description and the package version, from Cargo.toml) with `winresource`, which runs
//!   the resource compiler of the target's toolchain (`x86_64-w64-mingw32-windres` when
//!   cross-building on Linux, `rc.exe` with MSVC).

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    if os == "windows" {
        let mut res = winresource::WindowsResource::new();
        res.set_icon("assets/icon/cuda-triage.ico")
            .set("ProductName", "CUDA Triage")
            .set("FileDescription", "CUDA Triage")
            .set("InternalName", "cuda-triage.exe")
            .set("OriginalFilename", "cuda-triage.exe");
        if let Err(e) = res.compile() {
            panic!(
                "could not embed the icon and version resource ({e}); install the resource \
                 compiler (Debian: binutils-mingw-w64-x86-64)"
            );
        }
    }
    println!("cargo:rerun-if-changed=src/build.rs");
    println!("cargo:rerun-if-changed=assets/icon/cuda-triage.ico");
}
