//! Unit tests of the knowledge tables: every table parses, every row cites a source, every
//! catalog pattern matches its own example, and the lookups answer known questions.
//! [`facts`] holds the tables to the reference tables in `reference_tables.md`;
//! [`public_sources`] keeps what users see citing public sources only.

mod facts;
mod public_sources;

use super::*;
use crate::engine::context::Platform;

fn k() -> &'static Knowledge {
    assert!(
        load_error().is_none(),
        "tables failed to load: {:?}",
        load_error()
    );
    knowledge()
}

#[test]
fn every_table_parses_and_every_row_has_a_source() {
    let k = match Knowledge::load() {
        Ok(k) => k,
        Err(e) => panic!("{e}"),
    };
    let mut sources: Vec<(&str, &str)> = Vec::new();
    sources.extend(
        k.libraries
            .rows
            .iter()
            .map(|r| (r.file.as_str(), r.source.as_str())),
    );
    sources.extend(
        k.drivers
            .releases
            .iter()
            .map(|r| (r.release.as_str(), r.source.as_str())),
    );
    sources.extend(
        k.drivers
            .branches
            .iter()
            .map(|r| (r.cuda.as_str(), r.source.as_str())),
    );
    sources.extend(
        k.drivers
            .unverified
            .iter()
            .map(|r| (r.fact.as_str(), r.source.as_str())),
    );
    sources.extend(
        k.drivers
            .minor_compat
            .iter()
            .map(|r| ("minor_compat", r.source.as_str())),
    );
    sources.extend(
        k.drivers
            .rules
            .iter()
            .map(|r| (r.id.as_str(), r.source.as_str())),
    );
    sources.extend(
        k.tensorflow
            .builds
            .iter()
            .map(|r| (r.version.as_str(), r.source.as_str())),
    );
    sources.extend(
        k.tensorflow
            .notes
            .iter()
            .map(|r| (r.id.as_str(), r.source.as_str())),
    );
    sources.extend(
        k.tensorflow
            .and_cuda
            .iter()
            .map(|r| (r.version.as_str(), r.source.as_str())),
    );
    sources.extend(
        k.pytorch
            .releases
            .iter()
            .map(|r| (r.version.as_str(), r.source.as_str())),
    );
    sources.extend(
        k.pytorch
            .pypi_default
            .iter()
            .map(|r| (r.version.as_str(), r.source.as_str())),
    );
    sources.extend(
        k.pytorch
            .notes
            .iter()
            .map(|r| (r.id.as_str(), r.source.as_str())),
    );
    sources.extend(
        k.cudnn
            .support
            .iter()
            .map(|r| ("cudnn support", r.source.as_str())),
    );
    sources.extend(
        k.cudnn
            .rules
            .iter()
            .map(|r| (r.id.as_str(), r.source.as_str())),
    );
    sources.extend(
        k.compute
            .toolkits
            .iter()
            .map(|r| (r.cuda.as_str(), r.source.as_str())),
    );
    sources.extend(
        k.compute
            .frameworks
            .iter()
            .map(|r| (r.cuda.as_str(), r.source.as_str())),
    );
    sources.extend(
        k.compute
            .symptoms
            .iter()
            .map(|r| (r.text.as_str(), r.source.as_str())),
    );
    sources.extend(
        k.compute
            .ptx_isas
            .iter()
            .map(|r| (r.isa.as_str(), r.source.as_str())),
    );
    sources.extend(
        k.locations
            .locations
            .iter()
            .map(|r| (r.id.as_str(), r.source.as_str())),
    );
    sources.extend(
        k.locations
            .env
            .iter()
            .map(|r| (r.name.as_str(), r.source.as_str())),
    );
    sources.extend(
        k.catalog
            .messages
            .iter()
            .map(|r| (r.id.as_str(), r.source.as_str())),
    );
    sources.extend(
        k.catalog
            .codes
            .iter()
            .map(|r| (r.kind.as_str(), r.source.as_str())),
    );
    assert!(sources.len() > 400, "only {} rows", sources.len());
    for (row, source) in sources {
        assert!(source.trim().len() > 10, "row {row:?} has no real source");
    }
    assert!(k.libraries.rows.len() > 150);
    assert!(k.drivers.releases.len() >= 60);
    assert!(k.catalog.messages.len() >= 30);
}

#[test]
fn rows_on_weak_or_unconfirmed_sources_say_so() {
    let k = k();
    for r in &k.libraries.rows {
        if r.source.contains("unconfirmed") || r.source.contains("weak") {
            assert!(
                !r.verified,
                "{} cites a weak or unconfirmed source but is verified",
                r.file
            );
        }
    }
    assert!(k.drivers.unverified.iter().all(|u| !u.verified));
    assert!(
        !k.locations
            .get("cudnn9-windows-installer")
            .unwrap()
            .verified
    );
    let cudnn7 = k.cudnn.rows_for("7.6");
    assert!(!cudnn7.is_empty() && cudnn7.iter().all(|r| !r.verified));
}

#[test]
fn every_code_case_pattern_compiles() {
    for c in &k().catalog.codes {
        for case in &c.cases {
            assert!(
                regex::Regex::new(&format!("(?i){}", case.when)).is_ok(),
                "{:?}: case pattern does not compile: {}",
                c.names,
                case.when
            );
        }
    }
}

#[test]
fn every_catalog_pattern_matches_its_example() {
    let k = k();
    for (m, re) in k.catalog.messages.iter().zip(&k.catalog.patterns) {
        assert!(
            re.is_match(&m.example),
            "{}: pattern does not match its example",
            m.id
        );
        let cases = m.cases.iter().map(|c| &c.when);
        for context in [&m.text_names, &m.text_lacks]
            .into_iter()
            .flatten()
            .chain(cases)
        {
            assert!(
                regex::Regex::new(&format!("(?i){context}")).is_ok(),
                "{}: context pattern does not compile",
                m.id
            );
        }
        for o in &m.overrides {
            // A row names the rows it overrides, or a general finding of its line (the generic
            // symbol reading, a library not found) by its code.
            assert!(
                k.catalog.message(o).is_some()
                    || crate::engine::finding_codes::ALL.contains(&o.as_str()),
                "{}: overrides unknown {o}",
                m.id
            );
        }
    }
    assert_eq!(
        k.catalog.code("win32", 126).unwrap().names[0],
        "ERROR_MOD_NOT_FOUND"
    );
    assert_eq!(
        k.catalog
            .code_named("cudaerrorinsufficientdriver")
            .unwrap()
            .number,
        Some(35)
    );
}

#[test]
fn identifies_windows_names_case_insensitively_and_through_paths() {
    let id = identify_library("CUBLAS64_11.DLL").unwrap();
    assert_eq!(
        (id.component.as_str(), id.version_family.as_str()),
        ("cuBLAS", "11.x")
    );
    assert_eq!(id.file, "CUBLAS64_11.DLL");
    assert!(id.toolkits.contains(&"11.8".to_string()));
    let id = identify_library(r"C:\Python310\lib\site-packages\torch\lib\cudnn_cnn_infer64_8.dll")
        .unwrap();
    assert_eq!(
        (
            id.file.as_str(),
            id.component.as_str(),
            id.version_family.as_str()
        ),
        ("cudnn_cnn_infer64_8.dll", "cuDNN", "8")
    );
    assert_eq!(
        identify_library("'cudart64_100.dll'")
            .unwrap()
            .version_family,
        "10.0"
    );
    assert_eq!(identify_library("cublas64_11").unwrap().component, "cuBLAS");
    assert_eq!(identify_library("zlibwapi.dll").unwrap().component, "zlib");
    assert_eq!(identify_library("nvcuda.dll").unwrap().component, "driver");
}

#[test]
fn identifies_patterns() {
    let id = identify_library("cupti64_2022.3.0.dll").unwrap();
    assert_eq!(
        (id.component.as_str(), id.version_family.as_str()),
        ("CUPTI", "11.8")
    );
    let id = identify_library("cupti64_2031.7.2.dll").unwrap();
    assert_eq!(
        (id.component.as_str(), id.version_family.as_str()),
        ("CUPTI", ">=11.0")
    );
    let id = identify_library("libcupti.so.11.8").unwrap();
    assert_eq!(
        (id.version_family.as_str(), id.toolkits.clone()),
        ("11.8", vec!["11.8".to_string()])
    );
    assert_eq!(
        identify_library("libcupti.so.11.2.67")
            .unwrap()
            .version_family,
        "11.2"
    );
    assert_eq!(
        identify_library("nvrtc-builtins64_124.dll")
            .unwrap()
            .version_family,
        "12.4"
    );
}

/// `libnvvm.so.4` is the SONAME the CUDA 11.8-12.9 nvcc wheels' `nvvm/lib64/libnvvm.so` carries
/// (read from the binary by the fetch), and the file name the CUDA 13 `nvidia-nvvm` wheel ships:
/// one name for three majors, so no one major is claimed for it.
#[test]
fn a_soname_read_from_the_binary_spans_the_majors_that_ship_it() {
    let id = identify_library("libnvvm.so.4").unwrap();
    assert_eq!(
        (id.component.as_str(), id.version_family.as_str()),
        ("NVVM", "11.x-13.x")
    );
    for cuda in ["11.8", "12.4", "13.0"] {
        assert!(id.toolkits.iter().any(|t| t == cuda), "{cuda}: {id:?}");
    }
}

#[test]
fn identifies_sonames_with_any_suffix() {
    for (name, comp, fam) in [
        ("libcudart.so.12.4.127", "CUDA runtime", "12.x"),
        ("libcublas.so.12", "cuBLAS", "12.x"),
        ("libcudart.so.11.0", "CUDA runtime", "11.x"),
        ("libcudart.so.11.8.89", "CUDA runtime", "11.x"),
        ("libcudnn.so.9", "cuDNN", "9"),
        ("libcudnn.so.8.9.7", "cuDNN", "8"),
        ("libcudnn_cnn_infer.so.8", "cuDNN", "8"),
        ("libcuda.so.1", "driver", "driver"),
        ("libcuda.so.1.1", "driver", "driver"),
        (
            "/usr/local/cuda-11.1/targets/x86_64-linux/lib/libcusolver.so.11",
            "cuSOLVER",
            "11.1-12.x",
        ),
        ("libnvJitLink.so.12", "nvJitLink", "12.x"),
        ("libcublas.so.10.0", "cuBLAS", "10.0"),
    ] {
        let id = identify_library(name).unwrap_or_else(|| panic!("{name} not identified"));
        assert_eq!(
            (id.component.as_str(), id.version_family.as_str()),
            (comp, fam),
            "{name}"
        );
    }
    let id = identify_library("libcudnn.so").unwrap();
    assert_eq!(
        (id.component.as_str(), id.version_family.as_str()),
        ("cuDNN", "unversioned")
    );
    let id = identify_library("libcudart.so.99").unwrap();
    assert_eq!(id.version_family, "unknown");
    // The hand row only infers libcublasLt.so.12; the wheels' file lists have it.
    let lt = identify_library("libcublasLt.so.12").unwrap();
    assert!(lt.verified && lt.version_family == "12.x", "{lt:?}");
    assert!(lt.source.contains("nvidia-cublas"), "{}", lt.source);
    assert!(identify_library("libfoo.so.1").is_none());
    // A stem alone identifies only a well-formed file name, never a phrase around one.
    assert!(identify_library("cudnn64_8.dll not found").is_none());
    let trt = identify_library("libnvinfer_builder_resource.so.10.3.0").unwrap();
    assert_eq!(
        (trt.component.as_str(), trt.version_family.as_str()),
        ("TensorRT builder resources", "10")
    );
    assert!(identify_library("kernel32.dll").is_none());
    assert!(identify_library("").is_none());
    assert_eq!(
        identify_library("cublas64_99.dll").unwrap().version_family,
        "unknown"
    );
}

#[test]
fn driver_minimums() {
    let need = min_driver_for_cuda("12.4", Platform::Windows).unwrap();
    assert_eq!(
        (need.min_driver.as_str(), need.release.as_str()),
        ("551.61", "CUDA 12.4 GA")
    );
    assert_eq!(
        min_driver_for_cuda("11.8.89", Platform::Linux)
            .unwrap()
            .min_driver,
        "520.61.05"
    );
    assert!(min_driver_for_cuda("13.0", Platform::Windows).is_none());
    assert_eq!(
        min_driver_for_cuda("13.0", Platform::Linux)
            .unwrap()
            .min_driver,
        "580.65.06"
    );
    let d = &k().drivers;
    assert_eq!(d.branch("13.0").unwrap().branch, "R580");
    assert_eq!(d.minor_compat(12).unwrap().min_driver, "525");
    assert_eq!(
        d.driver_supports("531.14", "12.1", Platform::Windows),
        Some(true)
    );
    assert_eq!(
        d.driver_supports("470.86", "11.8", Platform::Linux),
        Some(false)
    );
    assert_eq!(drivers::DriverTables::decode_cuda_number(11040), "11.4");
}

#[test]
fn framework_builds() {
    let tf = tensorflow_build("2.10.1", Platform::Windows).unwrap();
    assert_eq!(
        (tf.cuda.as_str(), tf.cudnn.as_str(), tf.package.as_str()),
        ("11.2", "8.1", "tensorflow_gpu")
    );
    assert!(tensorflow_build("2.11.0", Platform::Windows).is_none());
    assert_eq!(
        tensorflow_build("2.15.0", Platform::Linux).unwrap().cuda,
        "12.2"
    );
    assert_eq!(
        tensorflow_build("1.8.0", Platform::Linux).unwrap().cuda,
        "9"
    );
    let t = &k().tensorflow;
    assert_eq!(t.native_windows_gpu("2.10.0"), Some(true));
    assert_eq!(t.native_windows_gpu("2.11.0"), Some(false));
    let pt = pytorch_build("2.4.0+cu121").unwrap();
    assert_eq!(pt.python_range(), (Some("3.8".into()), Some("3.12".into())));
    assert_eq!(
        k().pytorch.variant("2.4.0+cu121").unwrap().cudnn.as_deref(),
        Some("9.1.0.70")
    );
    assert!(k().pytorch.variant("2.4.0+cu999").is_none());
    assert_eq!(
        frameworks::cuda_from_wheel_tag("2.7.0+cu118").as_deref(),
        Some("11.8")
    );
    assert_eq!(
        pytorch_build("2.14").unwrap().python_range().0.as_deref(),
        Some("3.10")
    );
}

#[test]
fn cudnn_and_compute_capability() {
    assert_eq!(cudnn_supports_cuda("8.9.6", "12.1"), Some(true));
    assert_eq!(cudnn_supports_cuda("8.9.6.50", "11.4"), Some(true));
    assert_eq!(cudnn_supports_cuda("8.9.6", "12.4"), Some(false));
    assert_eq!(cudnn_supports_cuda("9.10.2", "12.9"), Some(true));
    assert_eq!(cudnn_supports_cuda("6.0", "8.0"), None);
    assert_eq!(
        cudnn::cudnn_runtime_compatible("8.0.4", "8.1.0"),
        Some(false)
    );
    assert_eq!(cudnn::cudnn_runtime_compatible("8.9.7", "8.6"), Some(true));
    assert_eq!(decode_cudnn_version(8600), "8.6.0");
    assert_eq!(decode_cudnn_version(90501), "9.5.1");
    assert_eq!(toolkit_supports_cc("12.4", "3.7"), Some(false));
    assert_eq!(toolkit_supports_cc("11.8", "3.7"), Some(true));
    assert_eq!(toolkit_supports_cc("13.0", "7.0"), Some(false));
    assert_eq!(toolkit_supports_cc("13.2", "8.6"), Some(true));
    // CUDA 9.0 dropped Fermi; before it the table says nothing.
    assert_eq!(toolkit_supports_cc("9.0", "2.1"), Some(false));
    assert_eq!(toolkit_supports_cc("8.0", "3.0"), None);
}

#[test]
fn every_library_name_pattern_compiles() {
    let t = &k().libraries;
    let rows = t.rows.iter().filter(|r| r.pattern).count();
    assert!(rows > 0);
    assert_eq!(
        t.compiled_patterns().len(),
        rows,
        "a pattern row does not compile"
    );
}

#[test]
fn the_error_catalog_loads() {
    // The catalog is parsed lazily and reads as empty if it fails: this is where a bad row shows.
    let c = super::catalog::Catalog::load().expect("error_catalog.toml loads");
    assert!(c.messages.len() > 90 && c.codes.len() > 30);
    assert_eq!(c.messages.len(), k().catalog.messages.len());
    // An id names one row: a finding's code and `overrides` refer to rows by it.
    let mut ids: Vec<&str> = c.messages.iter().map(|m| m.id.as_str()).collect();
    ids.sort_unstable();
    let twice: Vec<&&str> = ids
        .windows(2)
        .filter(|w| w[0] == w[1])
        .map(|w| &w[0])
        .collect();
    assert!(twice.is_empty(), "message ids used twice: {twice:?}");
}

#[test]
fn ptx_isa_rows_rise_with_cuda_and_end_before_the_generated_ptxas_table() {
    use super::version::compare;
    use std::cmp::Ordering;
    let rows = &k().compute.ptx_isas;
    assert!(!rows.is_empty());
    for pair in rows.windows(2) {
        assert_eq!(
            compare(&pair[0].isa, &pair[1].isa),
            Some(Ordering::Less),
            "{pair:?}"
        );
        assert_eq!(
            compare(&pair[0].cuda, &pair[1].cuda),
            Some(Ordering::Less),
            "{pair:?}"
        );
    }
    let first_read = generated::generated().ptxas_releases()[0].clone();
    let last_typed = rows.last().unwrap();
    assert_eq!(
        compare(&last_typed.cuda, &first_read.cuda),
        Some(Ordering::Less)
    );
    assert_eq!(
        compare(&last_typed.isa, &first_read.ptx_isa),
        Some(Ordering::Less)
    );
    // Lookups cross from the typed rows to the generated table without a gap.
    let compute = &k().compute;
    assert_eq!(
        ptx_isa::first_cuda_for_ptx_isa("7.1", compute).as_deref(),
        Some("11.1")
    );
    assert_eq!(
        ptx_isa::first_cuda_for_ptx_isa(&first_read.ptx_isa, compute).as_deref(),
        Some(first_read.cuda.as_str())
    );
    assert_eq!(
        ptx_isa::cuda_releases_of_ptx_isa("7.0", compute),
        vec!["11.0".to_string()]
    );
}
