//! The .NET (CLR) header of a managed PE (data directory 14, `IMAGE_COR20_HEADER`): the runtime
//! version its metadata names and the flags that decide the bitness of the process it runs in.
//! An "Any CPU" program runs 64-bit on 64-bit Windows unless it prefers 32-bit; a managed DLL
//! (Python.NET's `Python.Runtime.dll`) runs in whatever process loads it — which is what decides
//! which `python3X.dll` (32- or 64-bit) it can load. ECMA-335 §II.25.3.3 and §II.24.2.1.

use pelite::PeFile;
use serde::{Deserialize, Serialize};

const COM_DESCRIPTOR: usize = 14;
const COMIMAGE_FLAGS_ILONLY: u32 = 0x1;
const COMIMAGE_FLAGS_32BITREQUIRED: u32 = 0x2;
const COMIMAGE_FLAGS_32BITPREFERRED: u32 = 0x2_0000;

/// What the CLR header says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClrInfo {
    /// The metadata's runtime version string (`v4.0.30319`).
    pub runtime: String,
    /// `any` (either bitness), `any-prefer-32`, `32` or `64`.
    pub platform: String,
    /// Pure IL (no native code inside).
    pub il_only: bool,
}

impl ClrInfo {
    /// The bitness of the process it runs in on 64-bit Windows, in words.
    pub fn runs_as(&self, is_dll: bool) -> &'static str {
        match (self.platform.as_str(), is_dll) {
            ("any", true) => "in the process that loads it, 32- or 64-bit",
            ("any", false) => "as a 64-bit process (Any CPU)",
            ("any-prefer-32", true) => "in the process that loads it, 32- or 64-bit",
            ("any-prefer-32", false) => "as a 32-bit process (Any CPU, prefers 32-bit)",
            ("32", _) => "only in a 32-bit process",
            _ => "only in a 64-bit process",
        }
    }
}

pub(super) fn read(file: PeFile<'_>) -> Option<ClrInfo> {
    let dir = file.data_directory().get(COM_DESCRIPTOR)?;
    if dir.VirtualAddress == 0 || dir.Size < 24 {
        return None;
    }
    let header: &[u8] = file.derva_slice(dir.VirtualAddress, 24).ok()?;
    let u32_at = |b: &[u8], at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
    };
    let metadata_rva = u32_at(header, 8)?;
    let flags = u32_at(header, 16)?;
    let runtime = (|| {
        let root: &[u8] = file.derva_slice(metadata_rva, 16).ok()?;
        if u32_at(root, 0)? != 0x424A_5342 {
            return None; // "BSJB"
        }
        let len = u32_at(root, 12)? as usize;
        let text: &[u8] = file.derva_slice(metadata_rva + 16, len.min(255)).ok()?;
        let end = text.iter().position(|&b| b == 0).unwrap_or(text.len());
        Some(String::from_utf8_lossy(&text[..end]).into_owned())
    })()
    .unwrap_or_default();
    let pe32_plus = matches!(file, PeFile::T64(_));
    let platform = if pe32_plus {
        "64"
    } else if flags & COMIMAGE_FLAGS_ILONLY == 0 {
        "32" // mixed-mode x86 code
    } else if flags & COMIMAGE_FLAGS_32BITREQUIRED == 0 {
        "any"
    } else if flags & COMIMAGE_FLAGS_32BITPREFERRED != 0 {
        "any-prefer-32"
    } else {
        "32"
    };
    Some(ClrInfo {
        runtime,
        platform: platform.into(),
        il_only: flags & COMIMAGE_FLAGS_ILONLY != 0,
    })
}
