//! Parsers for the Python files the scan reads instead of importing anything: TensorFlow's
//! generated `build_info.py` (every form it has taken) and simple assignments such as
//! `torch/version.py`'s `cuda: Optional[str] = '12.1'` (pytorch's tools/generate_torch_version.py).

use super::version_clues;
use crate::engine::inventory::Framework;

/// TensorFlow's build_info.py in any of its generated forms: the `OrderedDict([('cuda_version',
/// '64_112'), ...])` of the 2.4+ wheels, the `{'cuda_version': '10.1', ...}` dict of 2.2-2.3,
/// `build_info['cuda_version'] = '64_112'`, `cuda_version = '11.8'`,
/// or TF 1.x's module-level `cuda_version_number = '10.0'` / `cudnn_version_number = '7'`
/// (the names TF 1.x's self_check.py reads, tensorflow/tensorflow#31701), and `msvcp_dll_name`.
pub fn apply_build_info(f: &mut Framework, text: &str) {
    let get = |key: &str| build_info_value(text, key);
    let unquote = |v: String| v.trim_matches(|c| c == '\'' || c == '"').to_string();
    if let Some(v) = get("is_cuda_build") {
        f.cuda_build = Some(v == "True" || v == "'True'");
    }
    if let Some(v) = get("cuda_version")
        .or_else(|| get("cuda_version_number"))
        .map(unquote)
    {
        f.expects.cuda = version_clues::from_tf_build_value(&v);
    }
    if let Some(v) = get("cudnn_version")
        .or_else(|| get("cudnn_version_number"))
        .map(unquote)
    {
        f.expects.cudnn = version_clues::from_tf_build_value(&v);
    }
    for key in [
        "msvcp_dll_name",
        "cudart_dll_name",
        "cudnn_dll_name",
        "nvcuda_dll_name",
        "msvcp_dll_names",
    ] {
        if let Some(v) = get(key).map(unquote) {
            f.expects.dll_names.extend(
                v.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty()),
            );
        }
    }
    if let Some(v) = get("cuda_compute_capabilities") {
        f.expects.compute_capabilities = v
            .trim_matches(['[', ']'])
            .split(',')
            .map(|s| s.trim().trim_matches(['\'', '"']).to_string())
            .filter(|s| !s.is_empty())
            .collect();
    }
}

/// The raw value written for `key` in build_info.py: after `build_info['key'] =`, `'key':` (one
/// entry per line or a whole dict on one line), `('key',` (an OrderedDict of tuples) or a
/// module-level `key =`. Lists are kept whole
/// (`['sm_35', 'sm_50']`), quoted strings with their quotes.
pub fn build_info_value(text: &str, key: &str) -> Option<String> {
    let quoted = [format!("'{key}'"), format!("\"{key}\"")];
    let after_quoted = quoted.iter().find_map(|q| {
        text.match_indices(q.as_str()).find_map(|(at, _)| {
            let rest = text[at + q.len()..].trim_start_matches(']').trim_start();
            rest.strip_prefix('=')
                .or_else(|| rest.strip_prefix(':'))
                .or_else(|| rest.strip_prefix(','))
        })
    });
    let after_bare = || {
        text.lines().find_map(|line| {
            let rest = line.trim().strip_prefix(key)?.trim_start();
            rest.strip_prefix('=')
        })
    };
    let rest = after_quoted.or_else(after_bare)?.trim_start();
    let end = match rest.chars().next()? {
        '[' => rest.find(']').map_or(rest.len(), |i| i + 1),
        q @ ('\'' | '"') => rest[1..].find(q).map_or(rest.len(), |i| i + 2),
        _ => rest.find([',', '}', ')', '\n']).unwrap_or(rest.len()),
    };
    Some(rest[..end].trim().to_string())
}

/// `name = 'x'` / `name: Optional[str] = 'x'` → `Some(Some(x))`; `= None` → `Some(None)`.
pub fn py_assignment(text: &str, name: &str) -> Option<Option<String>> {
    text.lines().find_map(|line| {
        let rest = line.trim().strip_prefix(name)?;
        let rest = rest.trim_start();
        let rest = if let Some(r) = rest.strip_prefix(':') {
            r.split_once('=')?.1
        } else {
            rest.strip_prefix('=')?
        };
        let v = rest.trim();
        if v == "None" {
            return Some(None);
        }
        let q = v.chars().next().filter(|c| *c == '\'' || *c == '"')?;
        let inner = &v[1..];
        Some(inner.find(q).map(|end| inner[..end].to_string()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::inventory::FrameworkKind;

    fn framework(
        kind: FrameworkKind,
        package: &str,
        version: Option<String>,
        location: &str,
    ) -> Framework {
        Framework::new(kind, package, version, location)
    }

    #[test]
    fn parses_tf_build_info_on_one_line() {
        let mut f = framework(FrameworkKind::TensorFlow, "tensorflow", None, "/x");
        apply_build_info(
            &mut f,
            "build_info = {'cuda_compute_capabilities': ['sm_35', 'sm_80'], 'cuda_version': '11.8', 'cudnn_version': '8', 'is_cuda_build': True}\n",
        );
        assert_eq!(f.expects.cuda.as_deref(), Some("11.8"));
        assert_eq!(f.expects.cudnn.as_deref(), Some("8"));
        assert_eq!(f.cuda_build, Some(true));
        assert_eq!(f.expects.compute_capabilities, ["sm_35", "sm_80"]);
    }

    #[test]
    fn parses_tf_build_info_forms() {
        let mut f = framework(FrameworkKind::TensorFlow, "tensorflow", None, "/x");
        let mut tf1 = framework(FrameworkKind::TensorFlow, "tensorflow-gpu", None, "/x");
        apply_build_info(
            &mut tf1,
            "is_cuda_build = True\ncuda_version_number = '10.0'\ncudnn_version_number = '7'\ncudart_dll_name = 'cudart64_100.dll'\n",
        );
        assert_eq!(tf1.expects.cuda.as_deref(), Some("10.0"));
        assert_eq!(tf1.expects.cudnn.as_deref(), Some("7"));
        assert!(
            tf1.expects
                .dll_names
                .contains(&"cudart64_100.dll".to_string())
        );
        let win = "build_info = collections.OrderedDict()\nbuild_info['cuda_version'] = '64_112'\nbuild_info['cudart_dll_name'] = 'cudart64_112.dll'\nbuild_info['cudnn_dll_name'] = 'cudnn64_8.dll'\nbuild_info['cudnn_version'] = '64_8'\nbuild_info['is_cuda_build'] = True\nbuild_info['msvcp_dll_names'] = 'msvcp140.dll,msvcp140_1.dll'\nbuild_info['nvcuda_dll_name'] = 'nvcuda.dll'\n";
        apply_build_info(&mut f, win);
        assert_eq!(f.expects.cuda.as_deref(), Some("11.2"));
        assert_eq!(f.expects.cudnn.as_deref(), Some("8"));
        assert_eq!(f.cuda_build, Some(true));
        assert!(
            f.expects
                .dll_names
                .contains(&"cudart64_112.dll".to_string())
        );
        assert!(f.expects.dll_names.contains(&"msvcp140_1.dll".to_string()));
        let mut g = framework(FrameworkKind::TensorFlow, "tensorflow", None, "/x");
        apply_build_info(
            &mut g,
            "build_info = {\n  'cuda_version': '11.8',\n  'is_cuda_build': False,\n  'cuda_compute_capabilities': ['sm_35', 'compute_80'],\n}\n",
        );
        assert_eq!(g.expects.cuda.as_deref(), Some("11.8"));
        assert_eq!(g.cuda_build, Some(false));
        assert_eq!(g.expects.compute_capabilities, vec!["sm_35", "compute_80"]);
    }

    #[test]
    fn parses_torch_version_py() {
        let t = "__version__ = '2.1.0+cu121'\ndebug = False\ncuda: Optional[str] = '12.1'\nhip: Optional[str] = None\n";
        assert_eq!(
            py_assignment(t, "__version__"),
            Some(Some("2.1.0+cu121".into()))
        );
        assert_eq!(py_assignment(t, "cuda"), Some(Some("12.1".into())));
        assert_eq!(py_assignment(t, "hip"), Some(None));
        assert_eq!(py_assignment("cuda = None\n", "cuda"), Some(None));
        assert_eq!(py_assignment("x = 1", "cuda"), None);
    }
}
