//! Whose folder a DLL path from an error message is in. A Windows load error such as
//! `[WinError 126] ... Error loading "...\torch\lib\fbgemm.dll"` names a DLL inside a framework's
//! own folder; the useful answer says whose folder that is, whether the DLL is an NVIDIA library
//! or the framework's own, and the command that shows which dependency is missing.

use crate::engine::knowledge::Knowledge;
use crate::engine::knowledge::libraries::file_name;

/// A framework folder: a path fragment (lower case, backslashes), its owner and the
/// `tree --context` that loads DLLs as that framework does.
struct FrameworkFolder {
    fragment: &'static str,
    owner: &'static str,
    folder: &'static str,
    context: &'static str,
}

const FOLDERS: &[FrameworkFolder] = &[
    FrameworkFolder {
        fragment: "\\torch\\lib\\",
        owner: "PyTorch",
        folder: "torch\\lib",
        context: "torch",
    },
    FrameworkFolder {
        fragment: "\\onnxruntime\\capi\\",
        owner: "ONNX Runtime",
        folder: "onnxruntime\\capi",
        context: "python",
    },
    FrameworkFolder {
        fragment: "\\site-packages\\nvidia\\",
        owner: "the pip nvidia-* wheels",
        folder: "site-packages\\nvidia",
        context: "python",
    },
    FrameworkFolder {
        fragment: "\\tensorflow\\python\\",
        owner: "TensorFlow",
        folder: "tensorflow\\python",
        context: "python",
    },
];

/// Plain-language detail for a DLL path inside a framework folder, with the command that finds
/// the missing dependency; `None` for a path in no known framework folder.
pub fn framework_dll_detail(path: &str, k: &Knowledge) -> Option<String> {
    let normalised = path.replace('/', "\\").to_ascii_lowercase();
    let folder = FOLDERS.iter().find(|f| normalised.contains(f.fragment))?;
    let file = file_name(path);
    let what = match k.libraries.identify(file) {
        Some(id) if !id.toolkits.is_empty() || id.component.starts_with("cu") => format!(
            "{file} is the copy of {} that {} ships in its own folder ({})",
            id.component, folder.owner, folder.folder
        ),
        Some(id) => format!(
            "{file} ({}) sits in {}'s own folder ({}); it is not an NVIDIA toolkit library",
            id.component, folder.owner, folder.folder
        ),
        None => format!(
            "{file} is {}'s own DLL in its folder ({}), not an NVIDIA library",
            folder.owner, folder.folder
        ),
    };
    Some(format!(
        "{what}. The file itself usually exists: Windows names the DLL it was asked to load even when one of that DLL's dependencies is what is missing. To see which dependency is missing, run: cuda-triage tree \"{path}\" --context {}.",
        folder.context
    ))
}

#[cfg(test)]
mod tests {
    use super::framework_dll_detail;
    use crate::engine::knowledge::knowledge;

    #[test]
    fn torch_lib_nvidia_and_own_dlls_and_other_folders() {
        let k = knowledge();
        // Paths as reported in https://github.com/2noise/ChatTTS/issues/886 and
        // https://github.com/pytorch/pytorch/issues/129568.
        let nvidia = framework_dll_detail(
            r"D:\Program Files\Python311\Lib\site-packages\torch\lib\cublas64_12.dll",
            k,
        )
        .unwrap();
        assert!(
            nvidia.contains("copy of cuBLAS that PyTorch ships"),
            "{nvidia}"
        );
        assert!(nvidia.contains("--context torch"), "{nvidia}");
        let own =
            framework_dll_detail(r"\.venv\Lib\site-packages\torch\lib\fbgemm.dll", k).unwrap();
        assert!(own.contains("PyTorch's own DLL"), "{own}");
        // https://github.com/microsoft/onnxruntime/issues/21501
        let ort = framework_dll_detail(
            r"C:\sd.webui\system\python\lib\site-packages\onnxruntime\capi\onnxruntime_providers_cuda.dll",
            k,
        )
        .unwrap();
        assert!(
            ort.contains("ONNX Runtime") && ort.contains("--context python"),
            "{ort}"
        );
        assert_eq!(framework_dll_detail(r"C:\app\foo.dll", k), None);
        assert_eq!(framework_dll_detail("", k), None);
    }
}
