//! The Windows registry behind the host interface: one string value read or written through the
//! registry API (never `setx`), its type kept, text as UTF-16 both ways (a value that is not
//! valid UTF-16, or not a string, is refused rather than rewritten), and the `WM_SETTINGCHANGE`
//! broadcast. Keys are written `HKCU\Environment` or `HKLM\SYSTEM\...`. Elsewhere every call
//! is a clear error.

use super::FixError;
use super::plan::RegValue;

/// The longest value Windows accepts for an environment variable, in UTF-16 units.
pub const MAX_VALUE_UNITS: usize = 32_767;

/// Refuses a value Windows would truncate.
pub fn check_length(value: &RegValue) -> Result<(), FixError> {
    let units = value.data.encode_utf16().count();
    if units > MAX_VALUE_UNITS {
        return Err(FixError::Refused(format!(
            "the new value would be {units} characters long; Windows keeps at most {MAX_VALUE_UNITS}"
        )));
    }
    Ok(())
}

#[cfg(windows)]
mod imp {
    use super::*;
    use crate::engine::fix::plan::RegValueKind;
    use winreg::enums::*;
    use winreg::{RegKey, RegValue as WinValue};

    fn open(key: &str, write: bool) -> Result<RegKey, FixError> {
        let (root, sub) = key.split_once('\\').unwrap_or((key, ""));
        let hive = match root.to_ascii_uppercase().as_str() {
            "HKCU" | "HKEY_CURRENT_USER" => HKEY_CURRENT_USER,
            "HKLM" | "HKEY_LOCAL_MACHINE" => HKEY_LOCAL_MACHINE,
            _ => {
                return Err(FixError::Refused(format!(
                    "unsupported registry root in {key}"
                )));
            }
        };
        let flags = if write {
            KEY_READ | KEY_WRITE
        } else {
            KEY_READ
        };
        RegKey::predef(hive)
            .open_subkey_with_flags(sub, flags)
            .map_err(|e| FixError::Io {
                path: key.to_string(),
                source: e,
            })
    }

    pub fn read(key: &str, name: &str) -> Result<Option<RegValue>, FixError> {
        let k = open(key, false)?;
        let raw = match k.get_raw_value(name) {
            Ok(v) => v,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(FixError::Io {
                    path: format!("{key}\\{name}"),
                    source: e,
                });
            }
        };
        let kind = match raw.vtype {
            REG_SZ => RegValueKind::Sz,
            REG_EXPAND_SZ => RegValueKind::ExpandSz,
            _ => {
                return Err(FixError::Refused(format!(
                    "{key}\\{name} is not a string value; it is left alone"
                )));
            }
        };
        let units: Vec<u16> = raw
            .bytes
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        let end = units.iter().position(|&u| u == 0).unwrap_or(units.len());
        let data = String::from_utf16(&units[..end]).map_err(|_| {
            FixError::Refused(format!(
                "{key}\\{name} holds text that is not valid UTF-16; it is left alone"
            ))
        })?;
        Ok(Some(RegValue { kind, data }))
    }

    pub fn write(key: &str, name: &str, value: Option<&RegValue>) -> Result<(), FixError> {
        let k = open(key, true)?;
        let err = |e| FixError::Io {
            path: format!("{key}\\{name}"),
            source: e,
        };
        let Some(value) = value else {
            return match k.delete_value(name) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(err(e)),
                _ => Ok(()),
            };
        };
        check_length(value)?;
        let vtype = match value.kind {
            RegValueKind::Sz => REG_SZ,
            RegValueKind::ExpandSz => REG_EXPAND_SZ,
        };
        let mut bytes: Vec<u8> = value
            .data
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        bytes.extend_from_slice(&[0, 0]);
        k.set_raw_value(name, &WinValue { bytes, vtype })
            .map_err(err)
    }

    pub fn broadcast_environment_change() {
        use std::os::windows::ffi::OsStrExt;
        #[link(name = "user32")]
        unsafe extern "system" {
            fn SendMessageTimeoutW(
                hwnd: isize,
                msg: u32,
                wparam: usize,
                lparam: isize,
                flags: u32,
                timeout: u32,
                result: *mut usize,
            ) -> isize;
        }
        const HWND_BROADCAST: isize = 0xffff;
        const WM_SETTINGCHANGE: u32 = 0x001A;
        const SMTO_ABORTIFHUNG: u32 = 0x0002;
        let text: Vec<u16> = std::ffi::OsStr::new("Environment")
            .encode_wide()
            .chain([0])
            .collect();
        let mut result = 0usize;
        unsafe {
            SendMessageTimeoutW(
                HWND_BROADCAST,
                WM_SETTINGCHANGE,
                0,
                text.as_ptr() as isize,
                SMTO_ABORTIFHUNG,
                5000,
                &mut result,
            );
        }
    }
}

#[cfg(not(windows))]
mod imp {
    use super::*;

    fn not_here() -> FixError {
        FixError::Refused("the Windows registry can only be changed on Windows".into())
    }

    pub fn read(_key: &str, _name: &str) -> Result<Option<RegValue>, FixError> {
        Err(not_here())
    }

    pub fn write(_key: &str, _name: &str, _value: Option<&RegValue>) -> Result<(), FixError> {
        Err(not_here())
    }

    pub fn broadcast_environment_change() {}
}

pub use imp::{broadcast_environment_change, read, write};
