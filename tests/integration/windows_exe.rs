//! The Windows executable itself, cross-built for `x86_64-pc-windows-gnu` and run under Wine:
//! what a double-click gets (a GUI program, no console window; the icon and version resource
//! from assets/; with no setting, a window drawn by the first renderer that can, remembered for
//! the next start), and what cmd or a script gets (output, exit codes and `--json` as on Linux).

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

/// Starts the wizard as a double-click does, with nothing set (no `WGPU_BACKEND`), waits (two
/// minutes at most) until its window is drawn, stops it, and returns what it logged.
fn double_click(wine: &Prefix, exe: &str) -> String {
    use std::process::{Command, Stdio};
    let xvfb = crate::xvfb::Xvfb::start();
    // The log goes to a file: Wine's own helpers (explorer.exe) may inherit a pipe and hold it.
    let log_path = wine.folder().join("wizard-stderr.txt");
    let log = std::fs::File::create(&log_path).unwrap();
    let mut app = wine
        .command(exe)
        .env("DISPLAY", &xvfb.display)
        .env_remove("WGPU_BACKEND")
        .env_remove("CUDA_TRIAGE_RENDERER")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let read_log = || std::fs::read_to_string(&log_path).unwrap_or_default();
    let mut rendered = 0;
    let mut exited = None;
    for _ in 0..60 {
        std::thread::sleep(std::time::Duration::from_secs(2));
        if let Ok(Some(status)) = app.try_wait() {
            exited = Some(status);
            break;
        }
        rendered = xvfb.dump().colours(800, 700);
        // Drawn, and the wizard has said with what (it does so once the frame is painted).
        if rendered > 20 && read_log().contains("window drawn with") {
            break;
        }
    }
    let _ = app.kill();
    let _ = app.wait();
    let _ = Command::new("/usr/lib/wine/wineserver")
        .arg("-k")
        .env("WINEPREFIX", &wine.prefix)
        .status();
    drop(xvfb);
    let said = read_log().replace('\r', "");
    if let Some(status) = exited {
        panic!("the wizard exited ({status}) instead of opening its window: {said}");
    }
    assert!(
        rendered > 20,
        "the window shows {rendered} colours after two minutes: nothing was drawn. Log: {said}"
    );
    said
}

/// The line of the log that names the renderer which drew the window.
fn drawn_with(log: &str) -> &str {
    log.lines()
        .find(|l| l.starts_with("cuda-triage: window drawn with "))
        .unwrap_or_else(|| panic!("the log names no renderer: {log}"))
}

/// What a double-click gets, with no setting: wgpu's Direct3D 12 cannot make a device here
/// (Wine's vkd3d on software Vulkan: "Parent device is lost"), so the wizard falls back to the
/// next renderer, draws, and says which; it remembers it, and the next start goes straight there.
#[test]
fn double_clicked_the_wizard_opens_its_window_under_wine() {
    let wine = Prefix::new();
    let exe = install_triage(&wine, r"C:\Program Files\CUDA Triage");

    let log = double_click(&wine, &exe);
    assert!(
        log.contains("cuda-triage: wgpu on Direct3D 12 could not draw the window"),
        "{log}"
    );
    let drawn = drawn_with(&log);
    assert!(
        !drawn.starts_with("cuda-triage: window drawn with wgpu on Direct3D 12"),
        "{log}"
    );
    eprintln!("{drawn}");

    // Remembered in the user's roaming application data, where eframe keeps its storage.
    let users = wine.c(r"C:\users");
    let remembered = std::fs::read_dir(&users)
        .unwrap()
        .flatten()
        .map(|u| {
            u.path()
                .join("AppData/Roaming/CUDA Triage/data/renderer.toml")
        })
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("no renderer.toml under {}", users.display()));
    let text = std::fs::read_to_string(&remembered).unwrap();
    assert!(
        text.contains("renderer = \"dx12\""),
        "the failure is kept: {text}"
    );

    // The second start pays for no failed attempt.
    let again = double_click(&wine, &exe);
    assert!(!again.contains("could not draw"), "{again}");
    assert_eq!(
        drawn_with(&again).split(" (").next(),
        drawn.split(" (").next()
    );
}
