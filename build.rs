//! Links the Linux executable as non-PIE. A PIE of this size carries ~52,000 relative
//! relocations that ld.so applies at every start, copy-on-writing ~300 pages of `.data.rel.ro`:
//! about 1 ms of the `tree` command's ~2 ms process start (measured with `perf stat` and
//! `LD_DEBUG=statistics`). A non-PIE executable has none. Only the binaries are affected; the
//! library, tests and proc-macros keep their defaults.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
