//! `framework_versions::file_version`: the true version of a cuDNN file comes from its real file
//! name (a tarball's `libcudnn_graph.so.9.0.0` behind the `.so.9` link) or the pip wheel that owns
//! its folder — and is never guessed from the soname alone.

use super::scan;
use crate::engine::context::Platform;
use crate::engine::context::fake::FakeMachine;
use crate::engine::rules::framework_versions::file_version;

#[cfg(unix)]
#[test]
fn a_tarball_link_gives_the_version_of_the_file_it_points_at() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    m.file("/opt/cudnn-9.0/lib/libcudnn_graph.so.9.0.0", b"\x7fELF");
    std::os::unix::fs::symlink(
        "libcudnn_graph.so.9.0.0",
        m.host("/opt/cudnn-9.0/lib/libcudnn_graph.so.9"),
    )
    .unwrap();
    let (ctx, inv) = scan(&m);
    assert_eq!(
        file_version(&ctx, &inv, "/opt/cudnn-9.0/lib/libcudnn_graph.so.9"),
        Some((
            "9.0.0".to_string(),
            "file name libcudnn_graph.so.9.0.0".to_string()
        ))
    );
}

#[test]
fn a_wheel_folder_gives_the_wheels_version_and_a_lone_soname_gives_none() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    let site = "/home/u/v/lib/python3.11/site-packages";
    m.file(
        &format!("{site}/nvidia/cudnn/lib/libcudnn_graph.so.9"),
        b"\x7fELF",
    )
    .file(
        &format!("{site}/nvidia_cudnn_cu12-9.1.0.70.dist-info/METADATA"),
        "Name: nvidia-cudnn-cu12\nVersion: 9.1.0.70\n",
    )
    .file("/opt/other/lib/libcudnn_graph.so.9", b"\x7fELF");
    let (ctx, inv) = scan(&m);
    assert_eq!(
        file_version(
            &ctx,
            &inv,
            &format!("{site}/nvidia/cudnn/lib/libcudnn_graph.so.9")
        ),
        Some((
            "9.1.0.70".to_string(),
            "wheel nvidia_cudnn_cu12-9.1.0.70.dist-info".to_string()
        ))
    );
    assert_eq!(
        file_version(&ctx, &inv, "/opt/other/lib/libcudnn_graph.so.9"),
        None
    );
}
