//! Where a binary's version was read (`VersionInfo.source`): one of the PE string-table fields,
//! VS_FIXEDFILEINFO, the nvcc banner, the file name or the SONAME — serialised as the field's own
//! name, as reports have always carried it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinaryVersionSource {
    ProductName,
    FileDescription,
    OriginalFilename,
    FileVersion,
    ProductVersion,
    /// The fixed file version (`a.b.c.d` numbers).
    #[serde(rename = "VS_FIXEDFILEINFO")]
    FixedFileInfo,
    /// `Cuda compilation tools, release 12.9, V12.9.86` inside an ELF.
    #[serde(rename = "nvcc banner")]
    NvccBanner,
    /// `libcudart.so.12.9.79`, `cupti64_2025.1.1.dll`.
    #[serde(rename = "file name")]
    FileName,
    /// The version suffix of the SONAME (`libcudart.so.12`).
    #[serde(rename = "soname")]
    Soname,
}

impl BinaryVersionSource {
    /// The name reports carry (for a PE string-table field, the field's key).
    pub fn as_str(self) -> &'static str {
        match self {
            BinaryVersionSource::ProductName => "ProductName",
            BinaryVersionSource::FileDescription => "FileDescription",
            BinaryVersionSource::OriginalFilename => "OriginalFilename",
            BinaryVersionSource::FileVersion => "FileVersion",
            BinaryVersionSource::ProductVersion => "ProductVersion",
            BinaryVersionSource::FixedFileInfo => "VS_FIXEDFILEINFO",
            BinaryVersionSource::NvccBanner => "nvcc banner",
            BinaryVersionSource::FileName => "file name",
            BinaryVersionSource::Soname => "soname",
        }
    }

    /// Whether the version came only from a name (the file's or its SONAME), not its contents.
    pub fn is_a_name(self) -> bool {
        matches!(
            self,
            BinaryVersionSource::FileName | BinaryVersionSource::Soname
        )
    }
}

#[cfg(test)]
mod tests {
    use super::BinaryVersionSource as S;

    #[test]
    fn each_source_keeps_its_json_string() {
        for s in [
            S::ProductName,
            S::FileDescription,
            S::OriginalFilename,
            S::FileVersion,
            S::ProductVersion,
            S::FixedFileInfo,
            S::NvccBanner,
            S::FileName,
            S::Soname,
        ] {
            let json = serde_json::to_string(&s).expect("serialises");
            assert_eq!(json, format!("\"{}\"", s.as_str()));
            assert_eq!(serde_json::from_str::<S>(&json).expect("reads back"), s);
        }
    }
}
