//! The TensorFlow reader on the real files of real releases, listed in
//! tests/fixtures/framework_releases.toml: every minor from 1.13 to 2.17 on Linux, every native
//! Windows GPU minor (1.13 to 2.10) and the CPU-only `tensorflow` + `tensorflow-intel` pairs after
//! it. And what the rules make of them: a real TensorFlow 2.10.1 or 2.0 Windows install next to
//! only CUDA 12 gets errors naming the DLLs it will ask for; its profiler's CUPTI is named as
//! TensorFlow asks for it (`cupti64_112.dll`).

use crate::release_files::Release;
use crate::release_machines::{CUDA11_DLLS, CUDA12_DLLS, check_every_release, windows_findings};
use cuda_triage::engine::findings::{Finding, Severity};

#[test]
fn every_listed_tensorflow_release_reads_as_its_files_say() {
    check_every_release("tensorflow", 44);
}

fn release(version: &str, platform: &str) -> Release {
    crate::release_files::release("tensorflow", version, platform)
}

/// The profiling warning: a framework asking for `asked` (in its order) that it will not find.
fn cupti_warning<'a>(findings: &'a [Finding], asked: &[&str]) -> &'a Finding {
    let f = findings
        .iter()
        .find(|f| f.code == "framework-cupti-missing")
        .unwrap_or_else(|| panic!("{findings:#?}"));
    assert_eq!(f.severity, Severity::Warning);
    assert_eq!(f.libraries, asked);
    assert!(
        f.summary.contains(&format!("asks for {}", asked[0])),
        "{}",
        f.summary
    );
    f
}

/// Every error finding's libraries.
fn errors_naming(findings: &[Finding]) -> Vec<String> {
    findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .flat_map(|f| f.libraries.clone())
        .collect()
}

#[test]
fn real_tf_2_10_1_on_windows_with_only_cuda_12_gets_errors_naming_its_dlls() {
    let findings = windows_findings(
        &release("2.10.1", "windows"),
        ("12.1", CUDA12_DLLS),
        &[],
        &[],
    );
    let named = errors_naming(&findings);
    for dll in [
        "cudart64_110.dll",
        "cublas64_11.dll",
        "cublasLt64_11.dll",
        "cufft64_10.dll",
        "cusparse64_11.dll",
        "cudnn64_8.dll",
    ] {
        assert!(
            named.iter().any(|n| n == dll),
            "no error names {dll}: {findings:#?}"
        );
    }
    // curand64_10.dll and cusolver64_11.dll ship with CUDA 12 too: found, so not reported.
    assert!(!named.iter().any(|n| n == "curand64_10.dll"), "{named:?}");
    let wrong = findings
        .iter()
        .find(|f| f.code == "library-wrong-major" && f.libraries == ["cublas64_11.dll"])
        .unwrap_or_else(|| panic!("{findings:#?}"));
    assert!(
        wrong.detail.contains("built for CUDA 11.2"),
        "{}",
        wrong.detail
    );
    assert!(wrong.detail.contains("cublas64_12.dll"), "{}", wrong.detail);
}

#[test]
fn real_tf_2_0_on_windows_with_only_cuda_12_gets_errors_naming_its_dlls() {
    let findings = windows_findings(
        &release("2.0.0", "windows"),
        ("12.1", CUDA12_DLLS),
        &[],
        &[],
    );
    let named = errors_naming(&findings);
    for dll in [
        "cudart64_100.dll",
        "cublas64_100.dll",
        "cufft64_100.dll",
        "cudnn64_7.dll",
    ] {
        assert!(
            named.iter().any(|n| n == dll),
            "no error names {dll}: {findings:#?}"
        );
    }
}

#[test]
fn real_tf_2_10_1_asks_for_cupti64_112_which_cuda_11_8_names_otherwise() {
    // CUDA 11.8 with every DLL TF 2.10 loads, and its CUPTI folder on PATH: the folder is
    // searched, but it holds cupti64_2022.3.0.dll, and TF asks for cupti64_112.dll, then cupti.dll.
    let findings = windows_findings(
        &release("2.10.1", "windows"),
        ("11.8", CUDA11_DLLS),
        &[
            r"extras\CUPTI\lib64\cupti64_2022.3.0.dll",
            r"bin\cudnn64_8.dll",
        ],
        &[r"extras\CUPTI\lib64"],
    );
    let f = cupti_warning(&findings, &["cupti64_112.dll", "cupti.dll"]);
    assert!(
        f.detail.contains("profiling"),
        "the consequence is spelled out: {}",
        f.detail
    );
    assert!(f.detail.contains("cupti64_2022.3.0.dll"), "{}", f.detail);
    assert!(
        f.evidence.iter().any(|e| e
            .path
            .as_deref()
            .is_some_and(|p| p.ends_with(r"CUPTI\lib64\cupti64_2022.3.0.dll"))),
        "{f:#?}"
    );
    crate::support::fix(f, "copy-as:cupti64_112.dll");
    // Everything else TF 2.10 loads is there: no error names one of its CUDA libraries.
    assert!(
        !findings.iter().any(|f| f.code.starts_with("library-")),
        "{findings:#?}"
    );
}

/// The same machine through the built binary and a machine file, as a user would run it:
/// `scan --machine M --json` reports the errors, and the inventory says where CUDA 11.2 was read.
#[test]
fn real_tf_2_10_1_machine_file_scan_reports_the_dlls_through_the_cli() {
    use crate::support::{json, run_cli};
    let m = crate::release_machines::windows_machine(
        &release("2.10.1", "windows"),
        ("12.1", CUDA12_DLLS),
        &[],
        &[],
    );
    let file = m.write_machine_file().expect("machine.toml");
    let doc = json(&run_cli(&[
        "scan",
        "--machine",
        &file.display().to_string(),
        "--json",
    ]));
    let errors: Vec<&str> = doc["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["severity"] == "error")
        .flat_map(|f| f["libraries"].as_array().into_iter().flatten())
        .filter_map(|l| l.as_str())
        .collect();
    for dll in ["cudart64_110.dll", "cublas64_11.dll", "cudnn64_8.dll"] {
        assert!(errors.contains(&dll), "{dll} not in {errors:?}");
    }
    let tf = &doc["inventory"]["python_envs"][0]["frameworks"][0];
    assert_eq!(tf["expects"]["cuda"], "11.2", "{tf:#}");
    assert_eq!(tf["expects"]["basis"], "build_info.py", "{tf:#}");
    assert!(tf["expects"].get("inferred_from").is_none(), "{tf:#}");
}

/// The findings for the release's real Linux install in a venv beside CUDA 11.8 under
/// /usr/local/cuda-11.8, whose CUPTI folder holds `cupti_files`, with `ld_library_path` set.
fn linux_findings(version: &str, cupti_files: &[&str], ld_library_path: &str) -> Vec<Finding> {
    use cuda_triage::engine::progress::Progress;
    use cuda_triage::engine::rules;
    let (mut m, _) = crate::release_machines::machine_with(&release(version, "linux"));
    m.file(
        "/usr/local/cuda-11.8/version.json",
        r#"{"cuda" : {"name" : "CUDA SDK", "version" : "11.8.0"}}"#,
    )
    .file("/usr/local/cuda-11.8/bin/nvcc", b"\x7fELF")
    .env("PATH", "/usr/local/cuda-11.8/bin:/usr/bin:/bin")
    .env("LD_LIBRARY_PATH", ld_library_path);
    for f in cupti_files {
        m.file(
            &format!("/usr/local/cuda-11.8/extras/CUPTI/lib64/{f}"),
            b"\x7fELF",
        );
    }
    let ctx = m.context();
    let inv = cuda_triage::engine::diagnosis::run(&ctx, &Progress::new()).inventory;
    rules::run_all(&ctx, &inv)
}

/// Real TensorFlow 2.10.1 on Linux asks for `libcupti.so.11.2`, then `libcupti.so`: CUDA 11.8's
/// CUPTI folder holds `libcupti.so` but ld.so does not search it, so profiling is lost — the same
/// warning Windows gets, with the LD_LIBRARY_PATH fix; once the folder is searched, nothing.
#[test]
fn real_tf_2_10_1_on_linux_warns_when_cupti_is_not_searched() {
    const CUPTI: &str = "/usr/local/cuda-11.8/extras/CUPTI/lib64";
    let files = ["libcupti.so.11.8", "libcupti.so"];
    let findings = linux_findings("2.10.1", &files, "/usr/local/cuda-11.8/lib64");
    let f = cupti_warning(&findings, &["libcupti.so.11.2", "libcupti.so"]);
    assert!(f.detail.contains("profiling"), "{}", f.detail);
    assert!(f.detail.contains(CUPTI), "{}", f.detail);
    crate::support::fix(f, &format!("ld-library-path-prepend:{CUPTI}"));
    let searched = linux_findings(
        "2.10.1",
        &files,
        &format!("/usr/local/cuda-11.8/lib64:{CUPTI}"),
    );
    assert!(
        !searched.iter().any(|f| f.code.contains("cupti")),
        "{searched:#?}"
    );
}

/// A CUPTI folder with none of the asked names (only `libcupti.so.11.8`, as the pip wheel
/// nvidia-cuda-cupti-cu11 ships it) needs a link by the asked name as well as the search path.
#[test]
fn real_tf_2_10_1_on_linux_is_told_to_link_cupti_by_the_asked_name() {
    const CUPTI: &str = "/usr/local/cuda-11.8/extras/CUPTI/lib64";
    let findings = linux_findings("2.10.1", &["libcupti.so.11.8"], CUPTI);
    let f = cupti_warning(&findings, &["libcupti.so.11.2", "libcupti.so"]);
    assert!(f.detail.contains("libcupti.so.11.8 only"), "{}", f.detail);
    // The folder is on LD_LIBRARY_PATH already: the link is the whole fix.
    assert!(!f.detail.contains("does not search"), "{}", f.detail);
    assert!(
        !f.fixes.iter().any(|x| x.id.starts_with("ld-library-path")),
        "{:?}",
        f.fixes
    );
    let link = crate::support::fix(f, "link-as:libcupti.so.11.2");
    assert!(
        link.summary
            .contains(&format!("ln -s libcupti.so.11.8 {CUPTI}/libcupti.so.11.2")),
        "{}",
        link.summary
    );
}
