//! Fuzzes the binary `/etc/ld.so.cache` reader: both formats (the old `ld.so-1.7.0` table, the
//! new `glibc-ld.so.cache1.1` one, and the old with the new appended), entry decoding and the
//! look-up a process of each machine makes.
#![no_main]

use cuda_triage_fuzz::binfmt::Machine;
use cuda_triage_fuzz::engine::loader::ldcache::LdCache;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(cache) = LdCache::parse(data) else {
        return;
    };
    let machines = [
        Machine {
            arch: "x86_64".into(),
            bits: 64,
        },
        Machine {
            arch: "i386".into(),
            bits: 32,
        },
        Machine {
            arch: "aarch64".into(),
            bits: 64,
        },
    ];
    let entries = cache.entries();
    for e in entries.iter().take(16) {
        let _ = e.label();
        for m in &machines {
            let _ = e.fits(m);
            let _ = cache.lookup(&e.name, m);
        }
    }
    let _ = cache.lookup("libcuda.so.1", &machines[0]);
});
