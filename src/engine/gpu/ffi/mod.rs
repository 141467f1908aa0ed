//! The C APIs the test calls, as tables of libloading function pointers taken from the exact
//! files the user chose. The enum values and struct layouts come from cudarc's bindgen-generated
//! bindings of NVIDIA's headers (and unit tests hold ours to them); cudarc's own function
//! bindings are not called, for three reasons:
//! - its loader is a process-wide search by library name: it cannot be pointed at a chosen file,
//!   and its name list has neither cuDNN 8 (`libcudnn.so.8`, `cudnn64_8.dll`) nor CUDA 13;
//! - its cuDNN bindings are built for one cuDNN major, and cuDNN 8 and 9 number their status
//!   codes differently;
//! - its status types are Rust enums, so a code it does not list (from a newer driver, or the
//!   other cuDNN major) would be undefined behaviour. Here every status is a plain `i32`.

pub mod blas;
pub mod cuda_driver_api;
pub mod dnn;
pub mod errors;
pub mod mapped;

use std::ffi::c_void;

/// Declares a struct of function pointers and a loader that resolves every one of them from a
/// library, naming the first missing symbol.
macro_rules! api_table {
    ($(#[$meta:meta])* $name:ident { $( $f:ident : fn($($a:ty),*) -> $r:ty ; )* }) => {
        $(#[$meta])*
        #[allow(non_snake_case)]
        pub struct $name {
            $( pub $f: unsafe extern "system" fn($($a),*) -> $r, )*
        }

        impl $name {
            /// Resolves every symbol.
            ///
            /// # Safety
            /// The library must export these symbols with these C signatures; the pointers are
            /// valid only while `lib` stays loaded.
            pub unsafe fn load(
                lib: &libloading::Library,
            ) -> Result<Self, $crate::engine::gpu::ffi::LoadError> {
                Ok(Self {
                    $( $f: unsafe {
                        *lib.get::<unsafe extern "system" fn($($a),*) -> $r>(
                            concat!(stringify!($f), "\0").as_bytes(),
                        )
                        .map_err(|cause| $crate::engine::gpu::ffi::LoadError::Symbol {
                            symbol: stringify!($f),
                            cause,
                        })?
                    }, )*
                })
            }
        }
    };
}
pub(crate) use api_table;

/// A library opened by the test, kept loaded for as long as its function tables are used.
pub struct OpenLibrary {
    pub lib: libloading::Library,
    /// What was asked for (an absolute path or a bare name).
    pub requested: String,
}

impl OpenLibrary {
    /// Opens a file by absolute path (or a bare name through the OS search). On Linux it binds
    /// every symbol now (`RTLD_NOW`), so a missing dependency symbol is reported at load time; on
    /// Windows an absolute path is loaded with `LOAD_WITH_ALTERED_SEARCH_PATH`, so the DLLs it
    /// depends on are looked for next to it first, as the frameworks arrange.
    pub fn open(requested: &str) -> Result<OpenLibrary, LoadError> {
        let lib = open_raw(requested).map_err(|cause| LoadError::Open {
            requested: requested.to_string(),
            cause,
        })?;
        Ok(OpenLibrary {
            lib,
            requested: requested.to_string(),
        })
    }

    /// The address of a symbol, if exported (used to ask the OS which file it came from).
    pub fn symbol_address(&self, name: &str) -> Option<*const c_void> {
        // SAFETY: the symbol is only read as an address, never called through this pointer.
        let symbol = unsafe { self.lib.get::<*const c_void>(name) }.ok()?;
        let raw = unsafe { symbol.try_as_raw_ptr() }? as *const c_void;
        (!raw.is_null()).then_some(raw)
    }

    /// The file the OS actually mapped for this library, found from one of its symbols.
    pub fn mapped_path(&self, symbol: &str) -> Option<String> {
        mapped::file_of_address(self.symbol_address(symbol)? as usize)
    }
}

/// A library the OS loader would not open, or a symbol it does not export. The text is the
/// loader's own, with every cause, in one line (it goes into the GPU test's report as it is).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{}", error_chain(.cause))]
    Open {
        requested: String,
        cause: libloading::Error,
    },
    #[error("{symbol}: {}", error_chain(.cause))]
    Symbol {
        symbol: &'static str,
        cause: libloading::Error,
    },
}

/// An error and its sources in one line (libloading's own text is just "dlopen failed").
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

#[cfg(unix)]
fn open_raw(requested: &str) -> Result<libloading::Library, libloading::Error> {
    use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
    // SAFETY: loading a library runs its initialisers; that is the point of the test, and it
    // happens in the disposable child process.
    unsafe { Library::open(Some(requested), RTLD_NOW | RTLD_LOCAL).map(Into::into) }
}

#[cfg(windows)]
fn open_raw(requested: &str) -> Result<libloading::Library, libloading::Error> {
    use libloading::os::windows::{LOAD_WITH_ALTERED_SEARCH_PATH, Library};
    let absolute = std::path::Path::new(requested).is_absolute();
    let flags = if absolute {
        LOAD_WITH_ALTERED_SEARCH_PATH
    } else {
        0
    };
    // SAFETY: as on Unix: initialisers run in the disposable child process.
    unsafe { Library::load_with_flags(requested, flags).map(Into::into) }
}

/// Reads a C string returned by a library (NULL → empty).
///
/// # Safety
/// `ptr` must be NULL or point to a NUL-terminated string that lives long enough.
pub unsafe fn c_string(ptr: *const std::ffi::c_char) -> String {
    if ptr.is_null() {
        return String::new();
    }
    unsafe { std::ffi::CStr::from_ptr(ptr) }
        .to_string_lossy()
        .into_owned()
}
