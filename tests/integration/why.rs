//! `why`: library names and pasted error text, as text and JSON, from arguments and stdin, with
//! the exit codes of the contract (0 nothing wrong, 1 an error finding, 2 the tool failed).

use crate::support::{fixture, json, run_cli, run_cli_stdin, stderr, stdout};

fn machine(name: &str) -> String {
    fixture(&format!("machines/{name}/machine.toml"))
        .display()
        .to_string()
}

#[test]
fn a_dll_name_is_identified_in_json() {
    let out = run_cli(&[
        "why",
        "cublas64_11.dll",
        "--json",
        "--machine",
        &machine("win-basic"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc = json(&out);
    assert_eq!(doc["schema"], "cuda-triage/1");
    assert_eq!(doc["machine"]["platform"], "windows");
    assert_eq!(
        doc["identified"],
        serde_json::json!([{"file": "cublas64_11.dll", "component": "cuBLAS", "version": "11.x"}])
    );
    let f = &doc["findings"][0];
    assert_eq!(f["code"], "library-identified");
    assert!(f["detail"].as_str().unwrap().contains("11.8"));
}

#[test]
fn a_soname_is_identified_in_text() {
    let out = run_cli(&["why", "libcudnn.so.9", "--machine", &machine("win-basic")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("Identified:") && text.contains("libcudnn.so.9") && text.contains("cuDNN"),
        "{text}"
    );
}

#[test]
fn pasted_log_from_stdin_exits_1_with_findings() {
    let log = "2023-01-01 W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found\n\
               Could not load library cudnn_cnn_infer64_8.dll. Error code 126\n\
               Please make sure cudnn_cnn_infer64_8.dll is in your library path!\n";
    let out = run_cli_stdin(
        &["why", "-", "--json", "--machine", &machine("win-basic")],
        log,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc = json(&out);
    let files: Vec<&str> = doc["identified"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, vec!["cudart64_110.dll", "cudnn_cnn_infer64_8.dll"]);
    assert_eq!(doc["identified"][1]["version"], "8");
    let codes: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    for want in [
        "log-tf-dso-load-failed",
        "log-cudnn-sublibrary-126",
        "win32-error-126",
    ] {
        assert!(codes.contains(&want), "{want} missing from {codes:?}");
    }
    assert_eq!(doc["findings"][0]["severity"], "error", "errors come first");
    assert_eq!(doc["codes"][0]["number"], 126);
}

#[test]
fn error_text_as_argument_in_text_form() {
    let out = run_cli(&[
        "why",
        "--machine",
        &machine("linux-basic"),
        "OSError: libcublas.so.11: undefined symbol: cublasLtHSHMatmulAlgoInit, version libcublasLt.so.11",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("Missing symbol: cublasLtHSHMatmulAlgoInit in libcublas.so.11"),
        "{text}"
    );
    assert!(text.contains("[missing-symbol]"), "{text}");
}

#[test]
fn unknown_text_is_not_an_error() {
    let out = run_cli(&[
        "why",
        "hello world",
        "--json",
        "--machine",
        &machine("win-basic"),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let doc = json(&out);
    assert_eq!(doc["identified"], serde_json::json!([]));
    let text = stdout(&run_cli(&[
        "why",
        "hello world",
        "--machine",
        &machine("win-basic"),
    ]));
    assert!(text.contains("No library names recognised"), "{text}");
}

#[test]
fn empty_input_and_bad_machine_exit_2() {
    let out = run_cli_stdin(&["why", "-", "--json"], "  \n");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        json(&out)["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nothing to explain")
    );
    let out = run_cli(&["why", "cublas64_11.dll", "--machine", "/nonexistent/m.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("/nonexistent/m.toml"));
}

#[test]
fn binary_junk_on_stdin_does_not_crash() {
    let junk: String = (0..20_000u32)
        .map(|i| char::from_u32((i.wrapping_mul(2_654_435_761) >> 11) % 0xD7FF).unwrap_or('?'))
        .collect();
    let out = run_cli_stdin(
        &["why", "-", "--json", "--machine", &machine("win-basic")],
        &junk,
    );
    assert!(
        matches!(out.status.code(), Some(0) | Some(1)),
        "{}",
        stderr(&out)
    );
    assert_eq!(json(&out)["schema"], "cuda-triage/1");
}

/// Text pasted from an IPython traceback starts with its arrow ("----> 2 …"): it is read as the
/// text to explain, not refused as an unknown option, and the status on its last line is found
/// (a status name from cuFFT's header, in the form torch prints it).
#[test]
fn text_beginning_with_hyphens_is_the_text() {
    let out = run_cli(&[
        "why",
        "--json",
        "----> 2 torch.fft.rfft(x)\n\nRuntimeError: cuFFT error: CUFFT_INVALID_PLAN",
    ]);
    assert!(out.status.code() != Some(2), "{}", stderr(&out));
    let doc = json(&out);
    let text = doc.to_string();
    assert!(text.contains("CUFFT_INVALID_PLAN"), "{text}");
}

#[test]
fn a_saved_log_file_is_read_and_a_library_file_is_explained_by_name() {
    // Ollama's server log line (https://github.com/ollama/ollama/issues/11593), saved to a file.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("server.log");
    std::fs::write(
        &log,
        "time=2025-08-02T22:42:20.643Z level=INFO source=gpu.go:612 msg=\"Unable to load cudart library /usr/lib/x86_64-linux-gnu/libcuda.so.575.57.08: cuda driver library init failure: 3\"\n",
    )
    .unwrap();
    let path = log.display().to_string();
    let from_file = json(&run_cli(&["why", &path, "--json"]));
    let from_stdin = json(&run_cli_stdin(
        &["why", "-", "--json"],
        &std::fs::read_to_string(&log).unwrap(),
    ));
    assert_eq!(from_file["findings"], from_stdin["findings"]);
    assert!(
        from_file["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "cuda-error-3"),
        "{from_file}"
    );
    // A real shared library (built here with gcc) is explained as the library its name says.
    let lib = crate::support::build_shared_library(
        dir.path(),
        "libcudart.so.12",
        "int f(void){return 0;}",
    );
    let doc = json(&run_cli(&["why", &lib.display().to_string(), "--json"]));
    assert_eq!(doc["identified"][0]["component"], "CUDA runtime", "{doc}");
}
