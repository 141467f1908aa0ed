//! LD_PRELOAD on real installs (issue 25, a situation it does not name): glibc's ld.so loads the
//! objects `LD_PRELOAD` names before the program's needs, and every later need of their soname
//! binds to them (`rtld.c` `dl_main`, `_dl_map_object`'s soname match). The oracles are the real
//! `import torch` and the files the real import mapped (`scan --probe`); the scan must agree: an
//! older libnvJitLink preloaded fails torch's import and is named with the variable, and a
//! healthy copy preloaded is the file the scan predicts torch takes.

use crate::closure_installs::{Copy, cudart_copy_elsewhere, env_for, nvjitlink_12_1_folder};
use crate::framework_loads::with_code;
use crate::framework_loads_audit::assert_rows_cited;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// `import torch` in the copy's python with `LD_PRELOAD` naming `preload`: the failure, if any.
fn import_torch_preloading(c: &Copy, preload: &Path) -> Result<(), String> {
    let mut cmd = Command::new(c.root.join("bin/python"));
    cmd.args(["-c", "import torch"]);
    env_for(&mut cmd, &c.root, None);
    cmd.env("LD_PRELOAD", preload);
    let out = cmd.output().expect("the venv's python starts");
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).to_string())
    }
}

/// `cuda-triage scan --json` (plus `extra`) with the copy activated and `LD_PRELOAD` set.
fn scan_preloading(c: &Copy, preload: &Path, extra: &[&str]) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cuda-triage"));
    cmd.args(["scan", "--json"]).args(extra);
    env_for(&mut cmd, &c.root, None);
    cmd.env("LD_PRELOAD", preload);
    let doc = crate::support::json(&cmd.output().expect("the built binary runs"));
    assert_rows_cited(&doc);
    doc
}

/// CUDA 12.1's libnvJitLink.so.12 in LD_PRELOAD: ld.so hands it to libcusparse.so.12's need, and
/// `import torch` fails on `__nvJitLinkComplete_12_4`, although the wheel's 12.4 copy is where
/// cuSPARSE's RPATH points. The scan names the preloaded file, says LD_PRELOAD put it first,
/// cites cuSPARSE's import table and offers unsetting the variable — not a reinstall of the
/// wheel, whose copy is fine.
#[test]
fn an_older_nvjitlink_in_ld_preload_fails_torch_and_the_scan_names_the_variable() {
    let c = Copy::new("ld-preload-nvjitlink");
    let old = nvjitlink_12_1_folder(&c).join("libnvJitLink.so.12");
    let err = import_torch_preloading(&c, &old).expect_err("import torch fails");
    assert!(
        err.contains("undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12"),
        "{err}"
    );
    let doc = scan_preloading(&c, &old, &[]);
    let named: Vec<&Value> = with_code(&doc, "missing-symbol")
        .into_iter()
        .filter(|f| f["libraries"][0] == "libnvJitLink.so.12")
        .collect();
    assert_eq!(named.len(), 1, "{doc:#}");
    let f = named[0];
    assert_eq!(f["severity"], "error", "{f:#}");
    let old_text = old.display().to_string();
    assert!(f["summary"].as_str().unwrap().contains(&old_text), "{f:#}");
    let detail = f["detail"].as_str().unwrap();
    assert!(
        detail.contains("LD_PRELOAD") && detail.contains("__nvJitLinkComplete_12_4"),
        "{f:#}"
    );
    assert!(!detail.contains("incomplete or damaged"), "{f:#}");
    assert!(
        crate::framework_loads::cites_load_list(f, "libcusparse.so.12's import table"),
        "{f:#}"
    );
    let fixes: Vec<&str> = f["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].as_str().unwrap())
        .collect();
    assert_eq!(fixes, ["env-unset:LD_PRELOAD"], "{f:#}");
}

/// A healthy copy of libcudart.so.12 outside every searched folder, in LD_PRELOAD: torch
/// imports, the real process maps that copy (not the wheel's), and the scan predicts the same
/// file — `--probe` finds no disagreement and nothing is reported about any library.
#[test]
fn a_healthy_copy_in_ld_preload_is_the_file_the_scan_predicts_torch_maps() {
    let c = Copy::new("ld-preload-cudart");
    let cudart = cudart_copy_elsewhere(&c);
    import_torch_preloading(&c, &cudart).expect("import torch works with the copy preloaded");
    let doc = scan_preloading(&c, &cudart, &["--probe"]);
    let probe = crate::closure_installs::torch_probe(&doc);
    assert_eq!(probe["outcome"], "ok", "{probe:#}");
    let real = cudart.canonicalize().unwrap().display().to_string();
    let mapped: Vec<&str> = probe["mapped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .filter(|m| m.ends_with("/libcudart.so.12"))
        .collect();
    assert_eq!(mapped, [real.as_str()], "{probe:#}");
    assert_eq!(
        with_code(&doc, "loader-disagrees"),
        Vec::<&Value>::new(),
        "{doc:#}"
    );
    assert_eq!(
        crate::closure_installs::loud_about_libraries(&doc),
        Vec::<&Value>::new(),
        "{doc:#}"
    );
}
