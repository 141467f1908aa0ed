//! The stub CUDA driver (`stub_cuda_driver.c`: one GPU, compute capability 8.6, driver API
//! 12.3) built with mingw as the prefix's `C:\windows\system32\nvcuda.dll`, where NVIDIA's
//! display driver installs the real one. TensorFlow asks the driver for its GPUs before it loads
//! its CUDA libraries, and loads none of them without one; the stub lets the oracle see that
//! load on a machine without a GPU. Rebuilt when the C source changes (the source it was built
//! from is kept beside the prefix).

use crate::wine_python::WinePython;
use std::process::Command;
use std::sync::Mutex;

const SOURCE: &str = include_str!("stub_cuda_driver.c");

/// Builds (once per source) the stub `nvcuda.dll` into the prefix's System32.
pub fn ensure_stub_driver(py: &WinePython) {
    static BUILT: Mutex<bool> = Mutex::new(false);
    let mut built = BUILT.lock().unwrap_or_else(|p| p.into_inner());
    if *built {
        return;
    }
    let dll = py.host(r"C:\windows\system32\nvcuda.dll");
    let kept = py.prefix.with_file_name("stub_cuda_driver.c");
    if std::fs::read_to_string(&kept).ok().as_deref() != Some(SOURCE) || !dll.is_file() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("stub_cuda_driver.c");
        std::fs::write(&source, SOURCE).unwrap();
        let out = dir.path().join("nvcuda.dll");
        crate::fixtures_build::run(
            Command::new("x86_64-w64-mingw32-gcc")
                .args(["-O2", "-Wall", "-Werror", "-shared", "-o"])
                .arg(&out)
                .arg(&source),
        )
        .expect("mingw builds the stub nvcuda.dll (install gcc-mingw-w64-x86-64)");
        let tmp = crate::wheels::unique_tmp(&dll);
        std::fs::copy(&out, &tmp).unwrap();
        std::fs::rename(&tmp, &dll).unwrap();
        std::fs::write(&kept, SOURCE).unwrap();
    }
    *built = true;
}
