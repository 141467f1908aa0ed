//! `closure_own`: a library is the framework's own file when its dist-info's RECORD lists it in
//! the package folder (under the dist-info's version, without version.py's local label), and
//! not when the RECORD does not (another package's library, or one outside the package).

use super::{linux_venv, scan};
use crate::engine::context::Platform;
use crate::engine::context::fake::FakeMachine;
use crate::engine::inventory::FrameworkKind;
use crate::engine::rules::closure_own::own_file;

#[test]
fn a_file_the_record_lists_in_the_package_folder_is_the_frameworks_own() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    let site = linux_venv(&mut m, "torchcpu");
    m.file(
        &format!("{site}/torch-2.5.1.dist-info/METADATA"),
        "Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1\n",
    )
    .file(
        &format!("{site}/torch-2.5.1.dist-info/RECORD"),
        "torch/__init__.py,sha256=x,10\ntorch/lib/libgomp-a34b3233.so.1,sha256=y,20\nfunctorch/libother.so,sha256=z,5\n",
    )
    .file(
        &format!("{site}/torch/version.py"),
        "__version__ = '2.5.1+cpu'\ncuda: Optional[str] = None\n",
    );
    let (ctx, inv) = scan(&m);
    let fw = inv.python_envs[0]
        .frameworks
        .iter()
        .find(|f| f.kind == FrameworkKind::PyTorch)
        .expect("torch found");
    let own = own_file(&ctx, fw, "libgomp-a34b3233.so.1").expect("listed");
    assert_eq!(own.member, "torch/lib/libgomp-a34b3233.so.1");
    assert_eq!(own.version, "2.5.1");
    assert_eq!(own.record, format!("{site}/torch-2.5.1.dist-info/RECORD"));
    // Outside the package folder, or not listed: not torch's.
    assert_eq!(own_file(&ctx, fw, "libother.so"), None);
    assert_eq!(own_file(&ctx, fw, "libcublas.so.12"), None);
}
