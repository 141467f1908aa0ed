//! Which file the OS actually mapped for a loaded library, asked with the address of one of its
//! symbols: on Linux from `/proc/self/maps`, on Windows with `GetModuleHandleExW` +
//! `GetModuleFileNameW`. This is what the loader really used, after symlinks and search paths.

/// The file mapped at `addr` in this process, if the OS says.
pub fn file_of_address(addr: usize) -> Option<String> {
    imp::file_of_address(addr)
}

/// The path of the mapping in `/proc/<pid>/maps` text that contains `addr`.
pub fn file_in_maps(maps: &str, addr: usize) -> Option<String> {
    for line in maps.lines() {
        let mut fields = line.split_whitespace();
        let Some(range) = fields.next() else { continue };
        let Some((start, end)) = range.split_once('-') else {
            continue;
        };
        let (Ok(start), Ok(end)) = (
            usize::from_str_radix(start, 16),
            usize::from_str_radix(end, 16),
        ) else {
            continue;
        };
        if addr < start || addr >= end {
            continue;
        }
        // perms, offset, dev, inode, then the path (which may contain spaces).
        let rest: Vec<&str> = fields.collect();
        if rest.len() < 5 {
            return None;
        }
        let path = rest[4..].join(" ");
        let path = path.trim_end_matches(" (deleted)");
        return path.starts_with('/').then(|| path.to_string());
    }
    None
}

#[cfg(target_os = "linux")]
mod imp {
    pub fn file_of_address(addr: usize) -> Option<String> {
        let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
        super::file_in_maps(&maps, addr)
    }
}

#[cfg(windows)]
mod imp {
    use std::ffi::c_void;
    use std::os::windows::ffi::OsStringExt;

    const GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS: u32 = 0x4;
    const GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT: u32 = 0x2;

    #[link(name = "kernel32")]
    unsafe extern "system" {
        fn GetModuleHandleExW(flags: u32, name: *const c_void, module: *mut *mut c_void) -> i32;
        fn GetModuleFileNameW(module: *mut c_void, filename: *mut u16, size: u32) -> u32;
    }

    pub fn file_of_address(addr: usize) -> Option<String> {
        let mut module: *mut c_void = std::ptr::null_mut();
        let flags =
            GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT;
        // SAFETY: with FROM_ADDRESS the "name" is an address inside a loaded module.
        if unsafe { GetModuleHandleExW(flags, addr as *const c_void, &mut module) } == 0 {
            return None;
        }
        let mut buf = vec![0u16; 32768];
        // SAFETY: the buffer holds `len` UTF-16 units.
        let n = unsafe { GetModuleFileNameW(module, buf.as_mut_ptr(), buf.len() as u32) };
        if n == 0 {
            return None;
        }
        let path = std::ffi::OsString::from_wide(&buf[..n as usize]);
        Some(path.to_string_lossy().into_owned())
    }
}

#[cfg(not(any(target_os = "linux", windows)))]
mod imp {
    pub fn file_of_address(_addr: usize) -> Option<String> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAPS: &str = "\
55d0c0a00000-55d0c0a21000 r--p 00000000 08:01 1234 /usr/bin/cuda-triage
7f1a2b000000-7f1a2b400000 r-xp 00010000 08:01 5678 /opt/my libs/libcublas.so.12.4.5.8
7f1a2c000000-7f1a2c001000 rw-p 00000000 00:00 0
7f1a2d000000-7f1a2d100000 r-xp 00000000 08:01 999 /tmp/libfake.so (deleted)
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]
";

    #[test]
    fn finds_the_file_containing_an_address_even_with_spaces() {
        assert_eq!(
            file_in_maps(MAPS, 0x7f1a2b000100).as_deref(),
            Some("/opt/my libs/libcublas.so.12.4.5.8")
        );
        assert_eq!(
            file_in_maps(MAPS, 0x7f1a2d000000).as_deref(),
            Some("/tmp/libfake.so")
        );
    }

    #[test]
    fn anonymous_pseudo_and_unmapped_addresses_have_no_file() {
        assert_eq!(file_in_maps(MAPS, 0x7f1a2c000010), None);
        assert_eq!(file_in_maps(MAPS, 0x7ffd00000010), None);
        assert_eq!(file_in_maps(MAPS, 0x10), None);
        assert_eq!(file_in_maps("garbage\n-\nzz-yy r 0 0 0 /x", 5), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_code_is_mapped_from_a_file() {
        let addr = this_process_code_is_mapped_from_a_file as fn() as usize;
        let file = file_of_address(addr).expect("test binary is mapped");
        assert!(file.starts_with('/'));
    }
}
