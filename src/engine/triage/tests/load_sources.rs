//! What installs a library a load error names, and runtime messages a program rewords: real
//! lines from the public threads cited above each test.

use super::*;

#[test]
fn an_unversioned_driver_name_is_a_development_link_to_the_versioned_file() {
    // https://github.com/PTRFRLL/nv-docker-trex/issues/31 (fixed by adding libnvidia-ml-dev)
    let t = triage(
        "20211025 09:25:39 WARN: Can't load NVML library, dlopen(25): failed to load libnvidia-ml.so, \
         libnvidia-ml.so: cannot open shared object file: No such file or directory",
    );
    let f = finding(&t, "log-dlopen-cannot-open").expect("the loader's message is read");
    assert!(
        f.detail
            .contains("only the versioned file (libnvidia-ml.so.1)"),
        "{}",
        f.detail
    );
    let link = f
        .fixes
        .iter()
        .find(|x| x.id == "advice-link-unversioned")
        .expect("the link is offered");
    assert!(
        link.summary
            .contains("sudo ln -s libnvidia-ml.so.1 libnvidia-ml.so"),
        "{}",
        link.summary
    );
}

#[test]
fn an_unversioned_toolkit_name_lists_each_soname_the_wheels_ship() {
    let t =
        triage("OSError: libcudart.so: cannot open shared object file: No such file or directory");
    let f = finding(&t, "log-dlopen-cannot-open").expect("the loader's message is read");
    // One soname per major release, never a full version (libcudart.so.12.4.127).
    assert!(
        f.detail
            .contains("(libcudart.so.11.0, libcudart.so.12, libcudart.so.13)"),
        "{}",
        f.detail
    );
}

#[test]
fn a_missing_toolkit_library_says_the_driver_does_not_install_it() {
    // https://github.com/CryptoDredge/miner/issues/3 (only the driver was installed)
    let t = triage(
        "/home/ceedii/CryptoDredge_0.27.0_cuda_11.4_linux/CryptoDredge: error while loading shared \
         libraries: libnvrtc.so.11.2: cannot open shared object file: No such file or directory",
    );
    let f = finding(&t, "log-dlopen-cannot-open").expect("the loader's message is read");
    assert!(
        f.detail.contains(
            "libnvrtc.so.11.2 is installed by the CUDA toolkit (CUDA 11.2 to 11.8) or the pip \
             wheel nvidia-cuda-nvrtc-cu11, not by the NVIDIA driver."
        ),
        "{}",
        f.detail
    );
    // A driver library gets no such sentence.
    let t =
        triage("OSError: libcuda.so.1: cannot open shared object file: No such file or directory");
    assert!(
        !all_text(&t).contains("not by the NVIDIA driver"),
        "{}",
        all_text(&t)
    );
}

#[test]
fn a_runtime_message_without_its_leading_article_is_still_read() {
    // https://github.com/dynexcoin/Dynex/issues/42 (HiveOS driver older than the miner's CUDA; a driver update fixed it)
    let t = triage("PUassert: The PTX was compiled with an unsupported toolchain, kernel.cu 2352");
    assert!(finding(&t, "cuda-error-222").is_some(), "{:?}", codes(&t));
}

#[test]
fn a_cuda_failure_that_nccl_quotes_is_the_runtime_code_not_ncclinvalidargument() {
    // https://github.com/NVIDIA/nccl/issues/976 (NVLS after a Fabric Manager restart)
    let t = triage("transport/nvls.cc:165 NCCL WARN Cuda failure 'invalid argument'");
    assert!(
        finding(&t, "nccl-status-ncclinvalidargument").is_none(),
        "{:?}",
        codes(&t)
    );
    let f = finding(&t, "cuda-error-1").expect("cudaErrorInvalidValue");
    assert!(f.detail.contains("Fabric Manager"), "{}", f.detail);
}
