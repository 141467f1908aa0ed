//! The Windows executable itself, cross-built for `x86_64-pc-windows-gnu` and run under Wine:
//! what a double-click gets (a GUI program, no console window; the icon and version resource
//! from assets/), and what cmd or a script gets (output, exit codes and `--json` as on Linux).

use super::wine_support::{Prefix, install_triage, triage_exe};
use pelite::pe64::{Pe, PeFile};
use std::process::Output;

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).replace('\r', "")
}

#[test]
fn the_exe_is_a_gui_program_with_the_icon_and_version_of_the_package() {
    let bytes = std::fs::read(triage_exe()).unwrap();
    eprintln!(
        "cuda-triage.exe (release, x86_64-pc-windows-gnu): {} bytes",
        bytes.len()
    );
    let pe = PeFile::from_bytes(&bytes).expect("a PE32+ image");
    assert_eq!(
        pe.optional_header().Subsystem,
        pelite::image::IMAGE_SUBSYSTEM_WINDOWS_GUI,
        "a double-click must open no console window"
    );
    let resources = pe.resources().expect("a resource section");

    let version = resources.version_info().expect("a version resource");
    let fixed = version.fixed().expect("VS_FIXEDFILEINFO");
    let want: Vec<u16> = env!("CARGO_PKG_VERSION")
        .split('.')
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(
        [
            fixed.dwFileVersion.Major,
            fixed.dwFileVersion.Minor,
            fixed.dwFileVersion.Patch
        ],
        [want[0], want[1], want[2]]
    );
    let lang = *version.translation().first().expect("a translation");
    assert_eq!(
        version.value(lang, "ProductName").as_deref(),
        Some("CUDA Triage")
    );
    assert_eq!(
        version.value(lang, "ProductVersion").as_deref(),
        Some(env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(
        version.value(lang, "OriginalFilename").as_deref(),
        Some("cuda-triage.exe")
    );

    // The icon group holds exactly the images of assets/icon/cuda-triage.ico.
    let ico = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/icon/cuda-triage.ico"
    ))
    .unwrap();
    let count = u16::from_le_bytes([ico[4], ico[5]]) as usize;
    let images: Vec<&[u8]> = (0..count)
        .map(|i| {
            let e = &ico[6 + 16 * i..6 + 16 * (i + 1)];
            let size = u32::from_le_bytes(e[8..12].try_into().unwrap()) as usize;
            let offset = u32::from_le_bytes(e[12..16].try_into().unwrap()) as usize;
            &ico[offset..offset + size]
        })
        .collect();
    let groups: Vec<_> = resources.icons().collect::<Result<_, _>>().unwrap();
    assert_eq!(groups.len(), 1, "one icon group");
    let group = &groups[0].1;
    assert_eq!(group.entries().len(), count);
    for (i, entry) in group.entries().iter().enumerate() {
        let image = group.image(entry.nId).expect("the icon image");
        assert_eq!(image, images[i], "icon image {i}");
    }
}

#[test]
fn from_a_console_it_prints_there_with_the_exit_codes_and_json_of_the_command_line() {
    let wine = Prefix::new();
    let exe = install_triage(&wine, r"C:\Program Files\CUDA Triage");

    let out = wine.command(&exe).arg("--version").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        text(&out).contains(env!("CARGO_PKG_VERSION")),
        "{}",
        text(&out)
    );

    // A usage error is exit 2 with the message on stderr.
    let out = wine.command(&exe).arg("no-such-command").output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-command"));

    // A pasted error, answered in JSON: exit 1 (a problem is named).
    let out = wine
        .command(&exe)
        .args([
            "why",
            "--json",
            "Could not load dynamic library 'cublas64_11.dll'",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let json: serde_json::Value = serde_json::from_str(&text(&out)).expect("JSON on stdout");
    assert_eq!(json["schema"], "cuda-triage/1");

    // Started by cmd from a script, as a user types it: cmd sees the output and the exit code.
    std::fs::write(
        wine.c(r"C:\run.bat"),
        format!("@echo off\r\n\"{exe}\" --version\r\necho exit=%ERRORLEVEL%\r\n\"{exe}\" no-such-command 2>nul\r\necho exit=%ERRORLEVEL%\r\n"),
    )
    .unwrap();
    let out = wine
        .command("cmd")
        .args(["/c", r"C:\run.bat"])
        .output()
        .unwrap();
    let said = text(&out);
    assert!(said.contains(env!("CARGO_PKG_VERSION")), "{said}");
    assert!(said.contains("exit=0\nexit=2"), "{said}");
}

#[test]
fn double_clicked_the_wizard_opens_its_window_under_wine() {
    use std::process::{Command, Stdio};
    let wine = Prefix::new();
    let exe = install_triage(&wine, r"C:\Program Files\CUDA Triage");
    let xvfb = crate::xvfb::Xvfb::start();
    let display = xvfb.display.clone();
    // Wine's Direct3D 12 (vkd3d) cannot make a device on this machine's software Vulkan, so
    // wgpu is pointed at Vulkan (winevulkan → lavapipe); Windows itself needs no such setting.
    let mut app = wine
        .command(&exe)
        .env("DISPLAY", &display)
        .env("WGPU_BACKEND", "vulkan")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut rendered = 0;
    for _ in 0..60 {
        std::thread::sleep(std::time::Duration::from_secs(2));
        if let Ok(Some(status)) = app.try_wait() {
            let out = app.wait_with_output().unwrap();
            panic!(
                "the wizard exited ({status}) instead of opening its window: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        rendered = xvfb.dump().colours(800, 700);
        if rendered > 20 {
            break;
        }
    }
    let _ = app.kill();
    let _ = Command::new("/usr/lib/wine/wineserver")
        .arg("-k")
        .env("WINEPREFIX", &wine.prefix)
        .status();
    drop(xvfb);
    assert!(
        rendered > 20,
        "the window shows {rendered} colours after two minutes: nothing was drawn"
    );
}
