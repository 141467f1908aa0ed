//! A line that says the NVIDIA driver's own library (`nvcuda.dll`, `libcuda.so.1`,
//! `libnvidia-ml.so.1`, `nvml.dll`, …: any name the library tables put in the driver family) could
//! not be loaded. No toolkit, wheel or PATH edit provides these files: only the driver installs
//! them (into `System32`, or the distribution's library folder; in a container, the NVIDIA
//! Container Toolkit mounts the host's).

use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::knowledge::LibraryIdentity;

/// Words with which loaders and frameworks say a library did not load.
pub(super) const FAILURE_WORDS: &[&str] = &[
    "could not load",
    "could not be loaded",
    "error while loading shared libraries",
    "cannot be loaded",
    "can't be loaded",
    "cannot load",
    "couldn't load",
    "cannot open",
    "can't open",
    "could not open",
    "couldn't open",
    "couldn't find",
    // ManagedCuda's own spelling: "Coudn't find a library nvrtc64_100".
    "coudn't find",
    "unable to load",
    "unable to open",
    "failed to load",
    "failed to open",
    "not found",
    "could not be found",
    "could not find",
    "unable to find",
    "failed to find",
    "no such file",
    "error 126",
    "winerror 126",
    "error code 126",
    "is missing",
    "loadlibrary",
    "dlopen",
];

/// One error for each driver library that a line of `text` says did not load.
pub fn driver_library_findings(text: &str, identities: &[LibraryIdentity]) -> Vec<Finding> {
    let mut out = Vec::new();
    for id in identities
        .iter()
        // An unversioned name of a driver library (`libnvidia-ml.so`) keeps its row's
        // container capability: only the driver's libraries have one.
        .filter(|id| {
            id.version_family == "driver"
                || id.component == "driver"
                || id.container_capability.is_some()
        })
    {
        // A library named in words ("NVML library is not installed") fails on the line that
        // names its component.
        let Some(line) = super::library_failure::failure_line(text, &id.file, &[FAILURE_WORDS])
            .or_else(|| {
                (id.component != "driver")
                    .then(|| {
                        super::library_failure::failure_line(text, &id.component, &[FAILURE_WORDS])
                    })
                    .flatten()
            })
        else {
            continue;
        };
        let log = Evidence::new("log", super::extract::clip(line.trim()));
        let lower = line.to_ascii_lowercase();
        out.push(match id.container_capability.as_deref() {
            // nvidia-smi names the link but opens the driver's soname: its own message stays
            // the driver's.
            None | Some("compute" | "utility")
                if is_link_name(&id.file) && !lower.contains("nvidia-smi") =>
            {
                link_name_finding(id, log)
            }
            None | Some("compute" | "utility") if lower.contains("nvidia-smi couldn't find") => {
                nvidia_smi_without_its_library(core_library_finding(id, log))
            }
            None | Some("compute" | "utility") => core_library_finding(id, log),
            Some("jetson") => jetson_library_finding(id, log),
            Some(cap) => capability_library_finding(id, cap, log),
        });
    }
    out
}

/// The CUDA driver or NVML: nothing but an installed (or, in a container, mounted) driver has it.
fn core_library_finding(id: &LibraryIdentity, log: Evidence) -> Finding {
    Finding::new(
        codes::DRIVER_LIBRARY_NOT_LOADED,
        Severity::Error,
        format!(
            "{} could not be loaded: it is the NVIDIA driver's library, so no NVIDIA driver is installed where the program looks",
            id.file
        ),
        format!(
            "{} ({}) is installed by the NVIDIA display driver, not by the CUDA toolkit, cuDNN or \
             a pip wheel, and nothing else provides it. The program could not load it: the driver \
             is not installed, was installed without its CUDA component, is for another \
             architecture, or (in a container) the host's driver was not mounted into it. A CUDA \
             toolkit alone never makes CUDA programs run. The CUDA driver library is libcuda.so.1 \
             (libcuda.so) on Linux, where WSL 2 has it in /usr/lib/wsl/lib, and nvcuda.dll in \
             System32 on Windows (there is no libcuda.dll): a program that asks for the other \
             platform's name, or a folder not on the loader's search path, fails the same way. A program packaged with its own library path does not search the system's folders \
             at all: Nix and flox builds look for the driver's libraries only in the folder their \
             packaging names (/run/opengl-driver/lib on NixOS, through the runpath addDriverRunpath \
             sets), and Snap, Flatpak and AppImage programs in their runtime; there the driver is \
             installed (nvidia-smi works) and only this program cannot find it.",
            id.file, id.component
        ),
    )
    .with_libraries([id.file.clone()])
    .with_evidence(log)
    .with_evidence(Evidence::new(
        "source",
        "https://docs.nvidia.com/cuda/cuda-installation-guide-microsoft-windows/ (the driver provides nvcuda.dll); \
         https://docs.nvidia.com/deploy/cuda-compatibility/ (the driver package includes the user mode CUDA driver, libcuda.so); \
         packaged programs: https://github.com/NixOS/nixpkgs/pull/67790 (mpv's 'Cannot load libcuda.so.1' on NixOS: the runpath to /run/opengl-driver/lib was missing)",
    ))
    .with_fix(FixRef {
        id: "advice-install-driver".into(),
        kind: FixKind::Manual,
        summary: "Install (or reinstall) the NVIDIA driver for this GPU from nvidia.com or the \
                  distribution's packages, then check with `nvidia-smi`; in a container, start it \
                  with `--gpus all` (or a CDI device) on a host that has the NVIDIA Container Toolkit. \
                  A machine or cloud instance without an NVIDIA GPU (a CPU instance type) has no \
                  driver to install: run there the CPU build or image of the program, or move to a \
                  GPU instance. Where the driver's versioned file is there (ls \
                  /usr/lib*/*/libnvidia-ml.so.* /usr/lib*/*/libcuda.so.*) but the name asked for is \
                  not, the ld cache or the soname link is missing: run sudo ldconfig (inside the \
                  container too) or recreate the link (libnvidia-ml.so.1 -> \
                  libnvidia-ml.so.<driver version>). Where nvidia-smi works and only a packaged \
                  program (Nix, flox, Snap, Flatpak) fails, expose the driver's folder to it: add it \
                  to LD_LIBRARY_PATH, link the library into the folder the package searches \
                  (/run/opengl-driver/lib), or update the package to one whose runpath includes it."
            .into(),
    })
}

/// nvidia-smi's own "couldn't find libnvidia-ml.so": the tool came with the driver (or was
/// mounted with it), so what is missing is its library on the loader's path.
fn nvidia_smi_without_its_library(mut f: Finding) -> Finding {
    let file = f.libraries.first().cloned().unwrap_or_default();
    f.summary = format!(
        "nvidia-smi runs but cannot load the driver's {file}: the driver's libraries are not where \
         the loader looks (not mounted, off the library path, or broken links)"
    );
    f.detail = format!(
        "Here nvidia-smi itself ran and says it: the driver's tools are present (installed with the \
         driver on a host, mounted with it into a container), so its NVML library is what the \
         loader does not see. In a container or pod: the host's driver libraries were not mounted \
         (no GPU request), or were mounted where only the library path finds them \
         (Singularity/Apptainer --nv binds them into /.singularity.d/libs and adds that folder to \
         LD_LIBRARY_PATH, which a script or shell that resets the environment drops), or the \
         image's own driver links point at files that are not there. On a host: a driver install \
         whose libraries are missing. {}",
        f.detail
    );
    f.with_evidence(Evidence::new(
        "source",
        "https://github.com/EESSI/software-layer/issues/231 (Singularity --nv: LD_LIBRARY_PATH \
         without /.singularity.d/libs after the environment was reset), \
         https://github.com/warmshao/FasterLivePortrait/issues/8 (an image's libnvidia-ml.so.1 \
         link pointing at a file that is not there; re-created to the mounted one), \
         https://github.com/utkuozdemir/nvidia_gpu_exporter/issues/105 (a pod without the host's \
         driver libraries)",
    ))
}

/// `libcuda.so`, `libnvidia-ml.so`: the unversioned name that only a development link provides.
fn is_link_name(file: &str) -> bool {
    file.starts_with("lib") && file.ends_with(".so") && !file.contains('/')
}

/// A program that opens the driver's library by its unversioned (link) name: the driver may be
/// there under its soname (`libcuda.so.1`) while nothing provides the name asked for.
fn link_name_finding(id: &LibraryIdentity, log: Evidence) -> Finding {
    let file = &id.file;
    Finding::new(
        codes::DRIVER_LIBRARY_NOT_LOADED,
        Severity::Error,
        format!(
            "{file} could not be loaded: no NVIDIA driver where the program looks, or the driver is \
             there as {file}.1 and nothing provides the unversioned name the program asks for"
        ),
        format!(
            "{file} ({}) comes only with the NVIDIA driver, which installs it under its soname, \
             {file}.1. The unversioned name is a link for building and linking: the loader finds it \
             only where a link of that name exists in a folder it searches (the distribution's \
             driver package usually adds one to its library folder). Under WSL 2 the driver's \
             libraries are in /usr/lib/wsl/lib, where the ld cache lists {file}.1 but not {file}: \
             a program that opens {file} fails there while the driver works; in a container, the \
             driver's files are there only when the NVIDIA Container Toolkit mounted them (under \
             their .so.1 names). Without a driver at all (a machine without an NVIDIA GPU, a \
             container started without one) both names fail.",
            id.component
        ),
    )
    .with_libraries([file.clone()])
    .with_evidence(log)
    .with_evidence(Evidence::new(
        "source",
        "https://github.com/NVIDIA/cuda-python/issues/17 ('Failed to dlopen libcuda.so' under WSL 2: \
         /usr/lib/wsl/lib on LD_LIBRARY_PATH works around it), \
         https://github.com/microsoft/WSL/issues/8587 (ldconfig -p lists only libcuda.so.1 there)",
    ))
    .with_fix(FixRef {
        id: "advice-driver-link-name".into(),
        kind: FixKind::Manual,
        summary: format!(
            "Check that the driver works (nvidia-smi; ls /usr/lib/wsl/lib under WSL 2). If it does, \
             make the unversioned name findable: add the folder that holds {file} (/usr/lib/wsl/lib \
             under WSL 2) to LD_LIBRARY_PATH, or create the link (sudo ln -s {file}.1 {file} in the \
             driver's library folder, then sudo ldconfig), or update the program to a release that \
             opens {file}.1. If nvidia-smi fails, install the NVIDIA driver (in a container, start it \
             with --gpus all)."
        ),
    })
}

/// A driver library of the video, graphics or NGX capability: CUDA itself may work (the default
/// container capabilities are compute and utility), but this part of the driver is not there.
fn capability_library_finding(id: &LibraryIdentity, cap: &str, log: Evidence) -> Finding {
    // "NVIDIA driver (NVDEC/NVCUVID video decoder)" is the driver's "NVDEC/NVCUVID video decoder".
    let part = id
        .component
        .strip_prefix("NVIDIA driver (")
        .and_then(|p| p.strip_suffix(')'))
        .unwrap_or(&id.component);
    Finding::new(
        codes::DRIVER_LIBRARY_NOT_LOADED,
        Severity::Error,
        format!(
            "{} could not be loaded: it is the NVIDIA driver's {part} library, which a container gets only with the `{cap}` driver capability",
            id.file
        ),
        format!(
            "{} ({}) is installed by the NVIDIA display driver, not by the CUDA toolkit or a wheel. \
             In a container the NVIDIA Container Toolkit mounts the host's driver libraries by \
             capability, and only those named in NVIDIA_DRIVER_CAPABILITIES: the default is \
             `compute,utility`, which brings libcuda and nvidia-smi but leaves out the `{cap}` \
             libraries, so CUDA works while this one is missing. On a host, the driver was \
             installed without it (a compute-only or headless driver package) or the library's \
             version differs from the running kernel module's. A program packaged with its own library path does not search the system's folders \
             at all: Nix and flox builds look for the driver's libraries only in the folder their \
             packaging names (/run/opengl-driver/lib on NixOS, through the runpath addDriverRunpath \
             sets), and Snap, Flatpak and AppImage programs in their runtime; there the driver is \
             installed (nvidia-smi works) and only this program cannot find it. The file can also be there while a \
             library it depends on is not (the dlerror then names that dependency): driver 384.81's \
             libnvcuvid needed libGL.so.1, which CUDA images lack, and 384.111 dropped that \
             dependency.",
            id.file, id.component
        ),
    )
    .with_libraries([id.file.clone()])
    .with_evidence(log)
    .with_evidence(Evidence::new(
        "source",
        "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html#driver-capabilities \
         (NVIDIA_DRIVER_CAPABILITIES, default compute,utility); the libraries of each capability: \
         https://github.com/NVIDIA/libnvidia-container/blob/00b4b47e2a3eed09f8059eb39feaa0b4540d22d9/src/nvc_info.c; \
         libnvcuvid of driver 384.81 needing libGL.so.1: https://github.com/NVIDIA/nvidia-docker/issues/531; \
         a packaged program's own driver folder: https://github.com/flox/flox/pull/3597 (libnvcuvid.so.1 not exposed to flox's ffmpeg)",
    ))
    .with_fix(FixRef {
        id: "advice-driver-capability".into(),
        kind: FixKind::Manual,
        summary: format!(
            "In a container, ask for the `{cap}` capability: `docker run --gpus all -e \
             NVIDIA_DRIVER_CAPABILITIES=compute,utility,{cap}` (or `all`; in compose, \
             `capabilities: [gpu, compute, utility, {cap}]`). On a host, install the full NVIDIA \
             driver package of the running module's version; where the library is installed and \
             only a packaged program (Nix, flox, Snap, Flatpak) cannot find it, add its folder to \
             LD_LIBRARY_PATH or link it into the driver folder that program searches."
        ),
    })
}

/// A Jetson (L4T) driver library: containers get these from the host only through the NVIDIA
/// runtime's CSV mounts, so a container run (or a `docker build` step) without that runtime, or an
/// image made for another L4T release, lacks them.
fn jetson_library_finding(id: &LibraryIdentity, log: Evidence) -> Finding {
    Finding::new(
        codes::DRIVER_LIBRARY_NOT_LOADED,
        Severity::Error,
        format!(
            "{} could not be loaded: it is the Jetson (L4T) driver's, which a container gets only from the NVIDIA runtime",
            id.file
        ),
        format!(
            "{} ({}) belongs to the Jetson Linux driver in /usr/lib/aarch64-linux-gnu/tegra on the \
             host; no CUDA toolkit, wheel or image provides it. A container sees it only when it \
             runs under the NVIDIA runtime, which mounts the host's L4T libraries listed in its CSV \
             files: `docker run` without `--runtime nvidia`, and every `docker build` step unless \
             the daemon's default runtime is nvidia, run without them. An image built for another \
             L4T/JetPack release than the host's can also ask for libraries the host does not have.",
            id.file, id.component
        ),
    )
    .with_libraries([id.file.clone()])
    .with_evidence(log)
    .with_evidence(Evidence::new(
        "source",
        "https://github.com/dusty-nv/jetson-containers/blob/master/docs/setup.md (docker default runtime); \
         https://github.com/dusty-nv/jetson-inference/issues/1543 (maintainer: set the default docker runtime to nvidia)",
    ))
    .with_fix(FixRef {
        id: "advice-jetson-runtime".into(),
        kind: FixKind::Manual,
        summary: "Run the container with `--runtime nvidia`; for `docker build` (and compose) set \
                  `\"default-runtime\": \"nvidia\"` in /etc/docker/daemon.json and restart docker; use an \
                  image made for the host's L4T release (`cat /etc/nv_tegra_release`)."
            .into(),
    })
}
