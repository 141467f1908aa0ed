//! Fuzzes the text readers of wheels and frameworks on their own, fast: a dist-info METADATA
//! (`Version:`, `Requires-Dist:` with markers), TensorFlow's `build_info.py`, a `version.py`
//! assignment, `version.json`/`version.txt`, cuDNN's header and a tool's `--version` output.
//! The input is cut at `--8<--` lines into METADATA | build_info.py | version.py.
#![no_main]

use cuda_triage_fuzz::engine::scan::{pyparse, version_clues};
use cuda_triage_fuzz::{pieces, text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parts = pieces(data, 3);
    let metadata = text(parts[0]);
    let _ = version_clues::from_metadata(&metadata);
    let _ = version_clues::from_metadata_on(&metadata, Some("linux"));
    let _ = version_clues::from_metadata_on(&metadata, Some("windows"));
    let build_info = text(parts[1]);
    for key in [
        "cuda_version",
        "cudnn_version",
        "is_cuda_build",
        "cuda_compute_capabilities",
    ] {
        if let Some(v) = pyparse::build_info_value(&build_info, key) {
            let _ = version_clues::from_tf_build_value(&v);
        }
    }
    let version_py = text(parts[2]);
    for name in ["cuda", "__version__", "git_version", "hip"] {
        let _ = pyparse::py_assignment(&version_py, name);
    }
    let whole = text(data);
    let _ = version_clues::from_version_json(&whole);
    let _ = version_clues::from_version_txt(&whole);
    let _ = version_clues::from_cudnn_header(&whole);
    let _ = version_clues::from_tool_output(data);
    for line in whole.lines().take(16) {
        let _ = version_clues::from_dist_info(line);
        let _ = version_clues::from_toolkit_folder(line);
        let _ = version_clues::from_cudart_name(line);
        let _ = version_clues::from_cudnn_name(line);
        let _ = version_clues::from_libcuda_name(line);
        let _ = version_clues::normalise_dist_name(line);
    }
});
