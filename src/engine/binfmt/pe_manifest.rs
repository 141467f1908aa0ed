//! Side-by-side manifests: the application manifest a PE embeds (resource type RT_MANIFEST, 24;
//! ID 1 for an .exe's process, 2 for a DLL's own imports) and the assembly manifests it names.
//! Only what the loader acts on is read: each `dependency/dependentAssembly/assemblyIdentity`
//! (name, version, processor architecture, public key token, language) and, in an assembly's
//! own manifest, its `<file name=…>` entries — the DLL names the activation context redirects.
//! XML that does not parse yields nothing (Windows refuses to start such a program, error
//! 14001, which the tree then reports as a load failure of its own).

use pelite::PeFile;
use pelite::resources::Name;
use serde::{Deserialize, Serialize};

const RT_MANIFEST: u32 = 24;

/// One assembly a manifest depends on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssemblyRef {
    pub name: String,
    pub version: String,
    /// `amd64`, `x86`, `arm64`, `*` or empty.
    #[serde(default)]
    pub arch: String,
    /// Present for shared (WinSxS) assemblies, absent for private ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_key_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// The manifest resource it came from (1: the process's, 2: the DLL's own imports).
    pub resource_id: u32,
}

/// The embedded manifest's dependencies (resource IDs 1–16, in ID order).
pub(super) fn dependencies(file: PeFile<'_>) -> Vec<AssemblyRef> {
    let Ok(resources) = file.resources() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for id in 1..=16u32 {
        if let Ok(bytes) = resources.find_resource(&[Name::Id(RT_MANIFEST), Name::Id(id)]) {
            out.extend(dependencies_in(&decode(bytes), id));
        }
    }
    out
}

/// Manifest bytes as text (UTF-8, with or without a BOM; UTF-16 LE with a BOM).
pub fn decode(bytes: &[u8]) -> String {
    if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        let units: Vec<u16> = rest
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        return String::from_utf16_lossy(&units);
    }
    let bytes = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(bytes);
    String::from_utf8_lossy(bytes)
        .trim_end_matches('\0')
        .to_string()
}

/// The dependencies declared in manifest text.
pub fn dependencies_in(xml: &str, resource_id: u32) -> Vec<AssemblyRef> {
    let Ok(doc) = roxmltree::Document::parse(xml.trim_start_matches('\u{feff}')) else {
        return Vec::new();
    };
    doc.descendants()
        .filter(|n| n.has_tag_name("assemblyIdentity"))
        .filter(|n| {
            n.parent_element()
                .is_some_and(|p| p.has_tag_name("dependentAssembly"))
        })
        .filter_map(|n| {
            let attr = |a: &str| n.attribute(a).map(str::to_string);
            Some(AssemblyRef {
                name: attr("name")?,
                version: attr("version").unwrap_or_default(),
                arch: attr("processorArchitecture").unwrap_or_default(),
                public_key_token: attr("publicKeyToken"),
                language: attr("language"),
                resource_id,
            })
        })
        .collect()
}

/// The DLL names an assembly manifest lists (`<file name="x.dll"/>`), as written.
pub fn assembly_files(xml: &str) -> Vec<String> {
    let Ok(doc) = roxmltree::Document::parse(xml.trim_start_matches('\u{feff}')) else {
        return Vec::new();
    };
    doc.descendants()
        .filter(|n| n.has_tag_name("file"))
        .filter_map(|n| n.attribute("name").map(str::to_string))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const VC90: &str = r#"<?xml version='1.0' encoding='UTF-8' standalone='yes'?>
<assembly xmlns='urn:schemas-microsoft-com:asm.v1' manifestVersion='1.0'>
  <trustInfo xmlns="urn:schemas-microsoft-com:asm.v3"><security><requestedPrivileges>
    <requestedExecutionLevel level='asInvoker' uiAccess='false' />
  </requestedPrivileges></security></trustInfo>
  <dependency>
    <dependentAssembly>
      <assemblyIdentity type='win32' name='Microsoft.VC90.CRT' version='9.0.21022.8' processorArchitecture='amd64' publicKeyToken='1fc8b3b9a1e18e3b' />
    </dependentAssembly>
  </dependency>
</assembly>"#;

    #[test]
    fn reads_a_visual_cpp_2008_dependency() {
        let deps = dependencies_in(VC90, 1);
        assert_eq!(deps.len(), 1);
        assert_eq!(deps[0].name, "Microsoft.VC90.CRT");
        assert_eq!(deps[0].version, "9.0.21022.8");
        assert_eq!(deps[0].arch, "amd64");
        assert_eq!(
            deps[0].public_key_token.as_deref(),
            Some("1fc8b3b9a1e18e3b")
        );
    }

    #[test]
    fn the_own_identity_is_not_a_dependency_and_bad_xml_is_nothing() {
        let own = r#"<assembly xmlns="urn:schemas-microsoft-com:asm.v1" manifestVersion="1.0">
            <assemblyIdentity name="Me" version="1.0.0.0"/><file name="me.dll"/></assembly>"#;
        assert!(dependencies_in(own, 1).is_empty());
        assert_eq!(assembly_files(own), ["me.dll"]);
        assert!(dependencies_in("<assembly><dependency>", 1).is_empty());
    }

    #[test]
    fn utf16_manifests_decode() {
        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend(VC90.encode_utf16().flat_map(u16::to_le_bytes));
        assert_eq!(dependencies_in(&decode(&bytes), 1).len(), 1);
    }
}
