//! The stand-in CUDA driver (`tests/fixtures/fake_driver/cuda_driver.c`, shared with the Linux
//! TensorFlow oracle: one GPU, compute capability 8.6, driver API 12.6) built with mingw as the prefix's `C:\windows\system32\nvcuda.dll`, where NVIDIA's
//! display driver installs the real one. TensorFlow asks the driver for its GPUs before it loads
//! its CUDA libraries, and loads none of them without one; the stub lets the oracle see that
//! load on a machine without a GPU. Rebuilt when the C source changes (the source it was built
//! from is kept beside the prefix).

use crate::wine_python::WinePython;
use std::process::Command;
use std::sync::Mutex;

const SOURCE: &str = include_str!("../../fixtures/fake_driver/cuda_driver.c");

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

/// Asks the stub, through Python's ctypes, what a framework asks the driver first.
const ASK_LINUX_STUB: &str = r#"
import ctypes, sys
cuda = ctypes.CDLL(sys.argv[1])
count, version, name = ctypes.c_int(), ctypes.c_int(), ctypes.create_string_buffer(64)
major = ctypes.c_int()
print(cuda.cuInit(0), cuda.cuDeviceGetCount(ctypes.byref(count)), count.value,
      cuda.cuDriverGetVersion(ctypes.byref(version)), version.value,
      cuda.cuDeviceGetName(name, 64, 0), name.value.decode(),
      cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, 0), major.value, sep="|")
"#;

/// The same C file builds with plain gcc as a Linux `libcuda.so.1` that answers the same way.
#[test]
fn stub_cuda_driver_builds_as_linux_libcuda_and_reports_one_gpu() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("stub_cuda_driver.c");
    std::fs::write(&source, SOURCE).unwrap();
    let lib = dir.path().join("libcuda.so.1");
    crate::fixtures_build::run(
        Command::new("gcc")
            .args(["-O2", "-Wall", "-Werror", "-shared", "-fPIC"])
            .args(["-Wl,-soname,libcuda.so.1", "-o"])
            .arg(&lib)
            .arg(&source),
    )
    .expect("gcc builds the stub as libcuda.so.1 (install gcc)");
    let info = cuda_triage::engine::binfmt::read_binary(&lib).unwrap();
    assert_eq!(info.soname.as_deref(), Some("libcuda.so.1"));
    let out = Command::new("python3")
        .args(["-c", ASK_LINUX_STUB])
        .arg(&lib)
        .output()
        .expect("python3 runs (Debian package python3)");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "0|0|1|0|12060|0|Fake GPU (cuda_driver.c)|0|8",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
