//! Fuzzes the text form of the library cache: `/etc/ld.so.conf` with its `include` globs (nested,
//! relative and absolute), two files of `/etc/ld.so.conf.d` and WSL's `/etc/wsl.conf`. The input,
//! cut at `--8<--` lines, becomes those four files on a scratch machine with no binary cache.
#![no_main]

use cuda_triage_fuzz::binfmt::Machine;
use cuda_triage_fuzz::engine::loader::glob_match;
use cuda_triage_fuzz::engine::loader::ldconf::CacheSource;
use cuda_triage_fuzz::{Scratch, pieces, text};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const FILES: &[&str] = &[
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d/cuda.conf",
    "/etc/ld.so.conf.d/x86_64-linux-gnu.conf",
    "/etc/wsl.conf",
];

fn scratch() -> &'static Scratch {
    static S: OnceLock<Scratch> = OnceLock::new();
    S.get_or_init(|| {
        let s = Scratch::new();
        s.write("/usr/lib/wsl/lib/libcuda.so.1", b"");
        s.write("/usr/local/cuda/lib64/libcudart.so.12", b"");
        s
    })
}

fuzz_target!(|data: &[u8]| {
    let s = scratch();
    let parts = pieces(data, FILES.len());
    for (file, content) in FILES.iter().zip(&parts) {
        s.write(file, content);
    }
    let m = Machine {
        arch: "x86_64".into(),
        bits: 64,
    };
    for wsl in [false, true] {
        let ctx = s.linux(wsl, &[]);
        let source = CacheSource::from_context(&ctx);
        let _ = source.describe();
        for name in ["libcuda.so.1", "libcudart.so.12"] {
            let _ = source.lookup(name, &m, &|p| ctx.fs.is_file(p));
        }
    }
    let (pattern, name) = (text(parts[0]), text(parts[1]));
    let _ = glob_match(&pattern, &name, false);
    let _ = glob_match(&pattern, &name, true);
});
