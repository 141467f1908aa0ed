//! Version clues from text and names: CUDA's version.json / version.txt, cuDNN headers,
//! library file names, the version string embedded in ptxas/nvcc, Python package metadata and
//! dist-info folder names. Pure functions over strings and bytes; no file access here.

use std::sync::OnceLock;

/// `version.json` (CUDA ≥ 11.1): `{"cuda": {"name": "CUDA SDK", "version": "12.4.1"}, ...}`.
pub fn from_version_json(text: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let v = value.get("cuda")?.get("version")?.as_str()?;
    clean(v)
}

/// `version.txt` (CUDA ≤ 11.0): `CUDA Version 10.0.130`.
pub fn from_version_txt(text: &str) -> Option<String> {
    let line = text.lines().find(|l| l.contains("CUDA Version"))?;
    clean(line.split("CUDA Version").nth(1)?.trim())
}

/// A version-looking string (`12.4.1`), or `None`.
fn clean(v: &str) -> Option<String> {
    let v = v.trim();
    let ok = !v.is_empty()
        && v.len() <= 32
        && v.chars().next().is_some_and(|c| c.is_ascii_digit())
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '+');
    ok.then(|| v.to_string())
}

/// A toolkit folder name: `v12.1` (Windows), `cuda-12.4` (Linux), `cuda-12` → the version.
pub fn from_toolkit_folder(name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    let v = lower
        .strip_prefix("cuda-")
        .or_else(|| lower.strip_prefix("cuda"))
        .or_else(|| lower.strip_prefix('v'))?;
    let v = clean(v)?;
    v.contains('.')
        .then_some(v.clone())
        .or_else(|| v.parse::<u32>().ok().map(|_| v))
}

/// The CUDA family a cudart library name implies: `cudart64_110.dll` → `11.x`,
/// `cudart64_12.dll` → `12`, `cudart64_101.dll` → `10.1`, `libcudart.so.12.4.127` → `12.4.127`,
/// `libcudart.so.11.0` → `11.x`.
pub fn from_cudart_name(name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    if let Some(rest) = lower.strip_prefix("cudart64_") {
        let digits = rest.strip_suffix(".dll")?;
        return family_from_digits(digits);
    }
    let rest = lower.strip_prefix("libcudart.so.")?;
    let v = clean(rest)?;
    Some(if v == "11.0" { "11.x".into() } else { v })
}

/// `110` → `11.x` (CUDA 11 keeps 110 for the family), `101` → `10.1`, `90` → `9.0`, `12` → `12`.
pub fn family_from_digits(digits: &str) -> Option<String> {
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some(match digits.len() {
        1 | 2 => digits.to_string(),
        3 if digits == "110" => "11.x".to_string(),
        3 => format!("{}.{}", &digits[..2], &digits[2..]),
        _ => return None,
    })
}

/// TensorFlow's build_info CUDA value: `64_112` → `11.2`, `64_101` → `10.1`, `11.8` → `11.8`,
/// `64_8` (cuDNN) → `8`.
pub fn from_tf_build_value(value: &str) -> Option<String> {
    let v = value.trim();
    match v.strip_prefix("64_") {
        Some(d) if d.len() == 3 => Some(format!("{}.{}", &d[..2], &d[2..])),
        Some(d) if d.len() == 2 && d.starts_with('9') => Some(format!("{}.{}", &d[..1], &d[1..])),
        Some(d) => clean(d),
        None => clean(v),
    }
}

/// cuDNN version from `cudnn_version.h` (v8+) or `cudnn.h` (v7):
/// `#define CUDNN_MAJOR 8` / `CUDNN_MINOR 9` / `CUDNN_PATCHLEVEL 7` → `8.9.7`.
pub fn from_cudnn_header(text: &str) -> Option<String> {
    let find = |key: &str| -> Option<u32> {
        text.lines().find_map(|l| {
            let mut parts = l.split_whitespace();
            (parts.next()? == "#define" && parts.next()? == key)
                .then(|| parts.next()?.parse().ok())
                .flatten()
        })
    };
    let major = find("CUDNN_MAJOR")?;
    let minor = find("CUDNN_MINOR").unwrap_or(0);
    let patch = find("CUDNN_PATCHLEVEL").unwrap_or(0);
    Some(format!("{major}.{minor}.{patch}"))
}

/// The cuDNN major a library name implies: `cudnn64_8.dll` → `8`, `cudnn_ops64_9.dll` → `9`,
/// `libcudnn.so.8.9.7` → `8.9.7`, `libcudnn_cnn_infer.so.8` → `8`.
pub fn from_cudnn_name(name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    if let Some(stem) = lower.strip_suffix(".dll") {
        if !stem.starts_with("cudnn") {
            return None;
        }
        let (_, major) = stem.rsplit_once("64_")?;
        return major
            .chars()
            .all(|c| c.is_ascii_digit())
            .then(|| major.to_string())
            .filter(|m| !m.is_empty());
    }
    if !lower.starts_with("libcudnn") {
        return None;
    }
    let (_, v) = lower.split_once(".so.")?;
    clean(v)
}

/// The driver version in a `libcuda.so.<version>` file name (`libcuda.so.550.54.15`).
pub fn from_libcuda_name(name: &str) -> Option<String> {
    let v = clean(name.strip_prefix("libcuda.so.")?)?;
    (v != "1" && v.contains('.')).then_some(v)
}

fn release_regex() -> &'static regex::bytes::Regex {
    static RE: OnceLock<regex::bytes::Regex> = OnceLock::new();
    RE.get_or_init(|| {
        crate::engine::static_regex::compile_bytes(
            r"Cuda compilation tools, release (\d+\.\d+), V(\d+\.\d+\.\d+)",
        )
    })
}

/// The version ptxas/nvcc embed: `Cuda compilation tools, release 12.4, V12.4.131` → `12.4.131`
/// (also what `ptxas --version` prints).
pub fn from_tool_output(bytes: &[u8]) -> Option<String> {
    let caps = release_regex().captures(bytes)?;
    let full = caps.get(2).or_else(|| caps.get(1))?;
    Some(String::from_utf8_lossy(full.as_bytes()).into_owned())
}

/// A dist-info (or egg-info) folder name → (normalised distribution name, version):
/// `nvidia_cublas_cu12-12.1.3.1.dist-info` → (`nvidia-cublas-cu12`, `12.1.3.1`).
pub fn from_dist_info(folder: &str) -> Option<(String, String)> {
    let stem = folder
        .strip_suffix(".dist-info")
        .or_else(|| folder.strip_suffix(".egg-info"))?;
    let (name, version) = stem.split_once('-')?;
    let version = version.split('-').next().unwrap_or(version);
    Some((normalise_dist_name(name), version.to_string()))
}

/// PEP 503 normalisation: lower case, runs of `-_.` become `-`.
pub fn normalise_dist_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut last_dash = false;
    for c in name.chars() {
        if c == '-' || c == '_' || c == '.' {
            if !last_dash {
                out.push('-');
            }
            last_dash = true;
        } else {
            out.push(c.to_ascii_lowercase());
            last_dash = false;
        }
    }
    out
}

/// `Version:` and the `nvidia-*` `Requires-Dist:` lines of a METADATA file.
pub fn from_metadata(text: &str) -> (Option<String>, Vec<(String, String)>) {
    from_metadata_on(text, None)
}

/// Whether an environment marker (`platform_system == "Linux" and ...`) rules out `platform`
/// (`"windows"` / `"linux"`): torch's Windows METADATA lists the Linux-only nvidia wheels.
fn marker_excludes(marker: &str, platform: &str) -> bool {
    let m = marker.to_ascii_lowercase().replace('\'', "\"");
    let linux_only =
        m.contains("platform_system == \"linux\"") || m.contains("sys_platform == \"linux\"");
    let windows_only =
        m.contains("platform_system == \"windows\"") || m.contains("sys_platform == \"win32\"");
    (platform == "windows" && linux_only) || (platform == "linux" && windows_only)
}

/// Like [`from_metadata`], leaving out requirements whose marker rules out `platform`.
pub fn from_metadata_on(
    text: &str,
    platform: Option<&str>,
) -> (Option<String>, Vec<(String, String)>) {
    let mut version = None;
    let mut requires = Vec::new();
    for line in text.lines() {
        if line.is_empty() {
            break; // headers end at the first blank line; the description follows
        }
        if let Some(v) = line.strip_prefix("Version:") {
            version = clean(v);
        } else if let Some(req) = line.strip_prefix("Requires-Dist:") {
            let req = req.trim();
            let end = req
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'))
                .unwrap_or(req.len());
            let name = normalise_dist_name(&req[..end]);
            let marker = req[end..].split_once(';').map_or("", |(_, m)| m);
            if platform.is_some_and(|p| marker_excludes(marker, p)) {
                continue;
            }
            if name.starts_with("nvidia-") {
                let spec = req[end..].split(';').next().unwrap_or("").trim();
                let spec = spec.trim_start_matches('(').trim_end_matches(')').trim();
                requires.push((name, spec.to_string()));
            }
        }
    }
    (version, requires)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toolkit_versions() {
        let json = r#"{"cuda" : {"name" : "CUDA SDK", "version" : "12.4.1"}}"#;
        assert_eq!(from_version_json(json).as_deref(), Some("12.4.1"));
        assert_eq!(from_version_json("{not json").as_deref(), None);
        assert_eq!(
            from_version_txt("CUDA Version 10.0.130\n").as_deref(),
            Some("10.0.130")
        );
        assert_eq!(from_toolkit_folder("v11.8").as_deref(), Some("11.8"));
        assert_eq!(from_toolkit_folder("cuda-12.4").as_deref(), Some("12.4"));
        assert_eq!(from_toolkit_folder("cuda").as_deref(), None);
        assert_eq!(from_toolkit_folder("vfoo").as_deref(), None);
        assert_eq!(
            from_cudart_name("cudart64_110.dll").as_deref(),
            Some("11.x")
        );
        assert_eq!(
            from_cudart_name("cudart64_101.dll").as_deref(),
            Some("10.1")
        );
        assert_eq!(from_cudart_name("CUDART64_12.DLL").as_deref(), Some("12"));
        assert_eq!(
            from_cudart_name("libcudart.so.12.4.127").as_deref(),
            Some("12.4.127")
        );
        assert_eq!(
            from_cudart_name("libcudart.so.11.0").as_deref(),
            Some("11.x")
        );
    }

    #[test]
    fn tf_and_cudnn_values() {
        assert_eq!(from_tf_build_value("64_112").as_deref(), Some("11.2"));
        assert_eq!(from_tf_build_value("64_8").as_deref(), Some("8"));
        assert_eq!(from_tf_build_value("11.8").as_deref(), Some("11.8"));
        let h = "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 9\n#define CUDNN_PATCHLEVEL 7\n";
        assert_eq!(from_cudnn_header(h).as_deref(), Some("8.9.7"));
        assert_eq!(from_cudnn_header("nothing").as_deref(), None);
        assert_eq!(from_cudnn_name("cudnn64_8.dll").as_deref(), Some("8"));
        assert_eq!(
            from_cudnn_name("cudnn_cnn_infer64_8.dll").as_deref(),
            Some("8")
        );
        assert_eq!(
            from_cudnn_name("libcudnn.so.9.1.0").as_deref(),
            Some("9.1.0")
        );
        assert_eq!(
            from_libcuda_name("libcuda.so.550.54.15").as_deref(),
            Some("550.54.15")
        );
        assert_eq!(from_libcuda_name("libcuda.so.1").as_deref(), None);
    }

    #[test]
    fn tool_and_python_metadata() {
        let bin = b"\x00\x01junkCuda compilation tools, release 12.4, V12.4.131\x00more";
        assert_eq!(from_tool_output(bin).as_deref(), Some("12.4.131"));
        assert_eq!(
            from_dist_info("nvidia_cublas_cu12-12.1.3.1.dist-info"),
            Some(("nvidia-cublas-cu12".into(), "12.1.3.1".into()))
        );
        let meta = "Metadata-Version: 2.1\nName: torch\nVersion: 2.1.0+cu121\nRequires-Dist: nvidia-cudnn-cu12 (==8.9.2.26) ; platform_system == \"Linux\"\nRequires-Dist: filelock\n\nVersion: 9\n";
        let (v, req) = from_metadata(meta);
        assert_eq!(v.as_deref(), Some("2.1.0+cu121"));
        assert_eq!(req, vec![("nvidia-cudnn-cu12".into(), "==8.9.2.26".into())]);
    }
}
