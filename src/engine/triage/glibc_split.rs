//! C library functions that older glibc keeps in separate libraries: `shm_open` lives in librt,
//! `pthread_create` in libpthread, `dlopen` in libdl until glibc 2.34 moved them into libc
//! (`clock_gettime` left librt in 2.17). A library linked on a newer system lists no librt or
//! libpthread dependency, so on an older glibc "undefined symbol: shm_open" means the other
//! library is missing from the process, not that the library that asked is broken.

use super::extract::MissingSymbol;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};

/// The library a function lived in before glibc merged it into libc, and the release that did.
struct SplitLibrary {
    library: &'static str,
    soname: &'static str,
    merged_in: &'static str,
    functions: &'static [&'static str],
    prefixes: &'static [&'static str],
}

const SPLIT_LIBRARIES: &[SplitLibrary] = &[
    SplitLibrary {
        library: "librt",
        soname: "librt.so.1",
        merged_in: "2.17",
        functions: &[
            "clock_gettime",
            "clock_getres",
            "clock_settime",
            "clock_nanosleep",
            "clock_getcpuclockid",
        ],
        prefixes: &[],
    },
    SplitLibrary {
        library: "librt",
        soname: "librt.so.1",
        merged_in: "2.34",
        functions: &["shm_open", "shm_unlink", "lio_listio", "lio_listio64"],
        prefixes: &["timer_", "mq_", "aio_"],
    },
    SplitLibrary {
        library: "libpthread",
        soname: "libpthread.so.0",
        merged_in: "2.34",
        functions: &[
            "sem_open",
            "sem_close",
            "sem_unlink",
            "sem_init",
            "sem_destroy",
            "sem_wait",
            "sem_post",
            "sem_timedwait",
            "sem_trywait",
            "sem_getvalue",
        ],
        prefixes: &["pthread_"],
    },
    SplitLibrary {
        library: "libdl",
        soname: "libdl.so.2",
        merged_in: "2.34",
        functions: &[
            "dlopen", "dlsym", "dlclose", "dlerror", "dladdr", "dladdr1", "dlinfo", "dlmopen",
            "dlvsym",
        ],
        prefixes: &[],
    },
    SplitLibrary {
        library: "libutil",
        soname: "libutil.so.1",
        merged_in: "2.34",
        functions: &["openpty", "forkpty", "login_tty"],
        prefixes: &[],
    },
    SplitLibrary {
        library: "libanl",
        soname: "libanl.so.1",
        merged_in: "2.34",
        functions: &["getaddrinfo_a", "gai_suspend", "gai_error", "gai_cancel"],
        prefixes: &[],
    },
];

fn split_library(symbol: &str) -> Option<&'static SplitLibrary> {
    SPLIT_LIBRARIES
        .iter()
        .find(|l| l.functions.contains(&symbol) || l.prefixes.iter().any(|p| symbol.starts_with(p)))
}

/// The reading of a missing glibc function that older releases keep outside libc.
pub fn glibc_split_finding(s: &MissingSymbol) -> Option<Finding> {
    let split = split_library(&s.symbol)?;
    let caller = s.library.as_deref().unwrap_or("the program");
    let (library, soname, merged) = (split.library, split.soname, split.merged_in);
    // The linker's "undefined reference" is read only for CUDA entry points (extract.rs).
    if s.at_link {
        return None;
    }
    let summary = format!(
        "{} is in {library} on this glibc, which {caller} does not load: it was linked against glibc {merged} or newer",
        s.symbol
    );
    let detail = format!(
        "{} is a C library function that glibc keeps in {library} ({soname}) before release \
         {merged}; from {merged} on it is part of libc itself. {caller} was linked on a system with \
         the newer glibc, so it does not list {library} as a dependency, and on this system's older \
         glibc (ldd --version shows it) nothing loads {library}: the symbol is missing although both \
         libraries are intact. Prebuilt wheels and binaries built on a new distribution fail so on \
         older ones (RHEL/Rocky 8, Ubuntu 20.04, CentOS 7).",
        s.symbol
    );
    let fix = format!(
        "Load {library} before {caller}: LD_PRELOAD={soname} for the program, or in Python \
         ctypes.CDLL(\"{soname}\", mode=ctypes.RTLD_GLOBAL) before the import; or use a build of the \
         package made for this glibc (a manylinux2014 wheel, the distribution's package), or a \
         system with glibc {merged} or newer."
    );
    let mut f = Finding::new(codes::MISSING_SYMBOL, Severity::Error, summary, detail)
        .with_evidence(Evidence::new("log", s.line.clone()))
        .with_evidence(Evidence::new(
            "source",
            "glibc 2.34 NEWS (libpthread, libdl, libutil and libanl merged into libc; librt's \
             shm_open, timers, message queues and AIO too): https://sourceware.org/glibc/wiki/Release/2.34; \
             glibc 2.17 NEWS (clock_* moved from librt to libc): https://sourceware.org/glibc/wiki/Release/2.17; \
             https://github.com/rapidsai/kvikio/pull/1000 (libcufile.so.0 of the nvidia-cufile wheel: \
             undefined symbol shm_open on Rocky Linux 8; preloading librt with RTLD_GLOBAL works around it)",
        ))
        .with_fix(FixRef {
            id: "advice-glibc-split-library".into(),
            kind: FixKind::Manual,
            summary: fix,
        });
    if let Some(l) = &s.library {
        f = f.with_libraries([l.clone()]);
    }
    Some(f)
}
