//! The Windows console, for an executable built as a GUI program (`windows_subsystem =
//! "windows"`, so a double-click opens no console window). Started from cmd or PowerShell, it
//! attaches to that console, so the command line prints there and keeps its exit codes; output
//! the caller redirected (`> report.json`, a pipe) is left where it goes. Elsewhere, and on
//! other platforms, nothing changes.

/// Attaches to the console of the process that started this one, where there is one, and points
/// the standard handles that are not already redirected at it. Returns whether this process
/// now has somewhere to print (a console, or handles its caller gave it).
#[cfg(windows)]
pub fn attach_parent_console() -> bool {
    use windows_sys::Win32::Foundation::{
        GENERIC_READ, GENERIC_WRITE, HANDLE, INVALID_HANDLE_VALUE,
    };
    use windows_sys::Win32::Storage::FileSystem::{
        CreateFileW, FILE_SHARE_READ, FILE_SHARE_WRITE, OPEN_EXISTING,
    };
    use windows_sys::Win32::System::Console::{
        ATTACH_PARENT_PROCESS, AttachConsole, GetStdHandle, STD_ERROR_HANDLE, STD_HANDLE,
        STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, SetStdHandle,
    };

    fn usable(h: HANDLE) -> bool {
        !h.is_null() && h != INVALID_HANDLE_VALUE
    }
    fn open(name: &str, access: u32) -> HANDLE {
        let wide: Vec<u16> = name.encode_utf16().chain(Some(0)).collect();
        // SAFETY: `wide` is a NUL-terminated UTF-16 string that outlives the call; the other
        // arguments are plain values or null, as CreateFileW documents.
        unsafe {
            CreateFileW(
                wide.as_ptr(),
                access,
                FILE_SHARE_READ | FILE_SHARE_WRITE,
                std::ptr::null(),
                OPEN_EXISTING,
                0,
                std::ptr::null_mut(),
            )
        }
    }

    let handles: [(STD_HANDLE, &str, u32); 3] = [
        (STD_INPUT_HANDLE, "CONIN$", GENERIC_READ | GENERIC_WRITE),
        (STD_OUTPUT_HANDLE, "CONOUT$", GENERIC_READ | GENERIC_WRITE),
        (STD_ERROR_HANDLE, "CONOUT$", GENERIC_READ | GENERIC_WRITE),
    ];
    // SAFETY: GetStdHandle takes a constant and returns a handle or null; no memory is shared.
    let redirected = unsafe { usable(GetStdHandle(STD_OUTPUT_HANDLE)) };
    // SAFETY: AttachConsole takes a process id constant; it fails harmlessly without a parent
    // console or when this process already has one.
    let attached = unsafe { AttachConsole(ATTACH_PARENT_PROCESS) } != 0;
    if attached {
        for (id, device, access) in handles {
            // SAFETY: as above; SetStdHandle only replaces this process's handle slot.
            unsafe {
                if !usable(GetStdHandle(id)) {
                    let h = open(device, access);
                    if usable(h) {
                        SetStdHandle(id, h);
                    }
                }
            }
        }
    }
    attached || redirected
}

/// Elsewhere the process keeps the terminal it was started from.
#[cfg(not(windows))]
pub fn attach_parent_console() -> bool {
    true
}

/// A command whose output is piped into `head` stops quietly when the reader goes away, as Unix
/// tools do, instead of failing on a broken pipe (Rust ignores SIGPIPE by default). Only for
/// the command line: the wizard keeps the default, so a closed display socket is an error.
pub fn quiet_broken_pipe() {
    #[cfg(unix)]
    // SAFETY: restoring a signal's default disposition at start-up, before any thread runs.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
