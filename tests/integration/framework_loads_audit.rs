//! Issue 25's "every error finding about a framework's libraries can show the row of the load
//! list it comes from", checked on every scan of a real install: [`unsourced`] lists each error
//! or warning about a framework's library (a shared object or DLL other than the driver's, in a
//! finding that names a framework or its environment) with no `load-list` evidence naming that
//! library — the `framework_loads.toml` row, the import table (`DT_NEEDED`) or run-time load row
//! of the binary that asks for it, or TensorFlow's CUPTI loader. `Copy::scan_with` (and the
//! TensorFlow and situation scans) assert it is empty, so every healthy venv and every breakage
//! the integration tests build is audited; the test below breaks the torch venv once per rule
//! that can report a framework's library and checks each finding is there and cited.

use serde_json::Value;

/// How findings name the frameworks (`FrameworkKind::display_name`) and their modules.
const FRAMEWORKS: &[&str] = &[
    "PyTorch",
    "TensorFlow",
    "JAX",
    "CuPy",
    "ONNX Runtime",
    "torch",
];

/// A library file name that is not the driver's (which this machine lacks, and the driver rules
/// cite the driver): `libcudnn.so.9`, `cublas64_11.dll`.
fn framework_library(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let library = lower.contains(".so") || lower.ends_with(".dll");
    let driver = ["libcuda.so", "libnvidia-ml.so", "nvcuda.dll", "nvml.dll"]
        .iter()
        .any(|d| lower.starts_with(d));
    library && !driver
}

/// Whether the finding is about a framework: it names one, or the environment it runs in.
fn about_a_framework(f: &Value) -> bool {
    let text = format!("{} {}", f["summary"], f["detail"]);
    FRAMEWORKS.iter().any(|name| text.contains(name))
        || f["evidence"]
            .as_array()
            .is_some_and(|ev| ev.iter().any(|e| e["kind"] == "environment"))
}

/// The library a finding is about, when it is a framework's library at error or warning.
pub(crate) fn framework_library_of(f: &Value) -> Option<&str> {
    if f["severity"] != "error" && f["severity"] != "warning" {
        return None;
    }
    let first = f["libraries"].as_array()?.first()?.as_str()?;
    (framework_library(first) && about_a_framework(f)).then_some(first)
}

/// "code: summary" of every error or warning about a framework's library whose evidence shows no
/// load-list row naming that library.
pub(crate) fn unsourced(doc: &Value) -> Vec<String> {
    doc["findings"]
        .as_array()
        .map(|all| {
            all.iter()
                .filter(|f| {
                    framework_library_of(f).is_some_and(|lib| {
                        !f["evidence"].as_array().is_some_and(|ev| {
                            ev.iter().any(|e| {
                                e["kind"] == "load-list"
                                    && e["text"].as_str().is_some_and(|t| t.contains(lib))
                            })
                        })
                    })
                })
                .map(|f| format!("{}: {}", f["code"], f["summary"]))
                .collect()
        })
        .unwrap_or_default()
}

/// Fails naming each finding about a framework's library that does not cite its load-list row.
pub(crate) fn assert_rows_cited(doc: &Value) {
    let missing = unsourced(doc);
    assert!(
        missing.is_empty(),
        "findings about a framework's library without the load-list row they come from:\n{}",
        missing.join("\n")
    );
}

#[cfg(unix)]
mod on_real_installs {
    use super::*;
    use crate::closure_installs::{Copy, nvjitlink_12_1_folder, torch_venv};
    use crate::framework_loads::cudnn_9_0_folder;
    use std::path::Path;

    /// One breakage of the torch venv: what it does to the copy (a file of the site-packages to
    /// remove or cut short), the folder LD_LIBRARY_PATH names, and the codes it must produce.
    struct Case {
        name: &'static str,
        remove: Option<&'static str>,
        truncate: Option<&'static str>,
        codes: &'static [&'static str],
    }

    const CASES: &[Case] = &[
        // closure: a DT_NEEDED of torch's closure gone (the import fails).
        Case {
            name: "audit-no-cudnn",
            remove: Some("nvidia/cudnn/lib/libcudnn.so.9"),
            truncate: None,
            codes: &["library-not-found"],
        },
        // closure: a run-time load of cuDNN's shim gone (a warning).
        Case {
            name: "audit-no-cudnn-cnn",
            remove: Some("nvidia/cudnn/lib/libcudnn_cnn.so.9"),
            truncate: None,
            codes: &["runtime-library-not-found"],
        },
        // framework_libs: torch's LazyNVRTC row.
        Case {
            name: "audit-no-nvrtc",
            remove: Some("nvidia/cuda_nvrtc/lib/libnvrtc.so.12"),
            truncate: None,
            codes: &["library-missing"],
        },
        // closure: a damaged file.
        Case {
            name: "audit-truncated",
            remove: None,
            truncate: Some("nvidia/cublas/lib/libcublasLt.so.12"),
            codes: &["library-unreadable"],
        },
    ];

    /// Every rule that reports a framework's library, on a real break of the torch venv: the
    /// finding is there, and it shows the load-list row it comes from (the audit every scan runs
    /// would fail otherwise, naming its code and summary). The LD_LIBRARY_PATH cases: an older
    /// nvJitLink (closure's missing symbol) and cuDNN 9.0 (framework_versions' refusal).
    #[test]
    fn every_finding_about_a_framework_library_cites_its_load_list_row() {
        let mut seen: Vec<String> = Vec::new();
        let mut check = |doc: &Value, codes: &[&str], case: &str| {
            for code in codes {
                let found: Vec<&Value> = doc["findings"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|f| f["code"] == *code && framework_library_of(f).is_some())
                    .collect();
                assert!(!found.is_empty(), "{case}: no {code}: {doc:#}");
                seen.push(code.to_string());
            }
            assert_rows_cited(doc);
        };
        for case in CASES {
            let c = Copy::of(torch_venv(), case.name);
            if let Some(rel) = case.remove {
                c.replace(rel, None);
            }
            if let Some(rel) = case.truncate {
                use std::io::Read;
                let mut head = vec![0; 1 << 20];
                let mut file = std::fs::File::open(c.site().join(rel)).unwrap();
                file.read_exact(&mut head).unwrap();
                c.replace(rel, Some(&head));
            }
            check(&c.scan(None), case.codes, case.name);
        }
        let c = Copy::of(torch_venv(), "audit-old-nvjitlink");
        let old = nvjitlink_12_1_folder(&c);
        check(&c.scan(Some(&old)), &["missing-symbol"], "old nvJitLink");
        let cudnn = cudnn_9_0_folder(true, "audit");
        check(
            &c.scan(Some(Path::new(&cudnn))),
            &["library-version-refused"],
            "cuDNN 9.0 first",
        );
        let _ = std::fs::remove_dir_all(&cudnn);
        assert_eq!(seen.len(), CASES.len() + 2, "{seen:?}");
    }
}
