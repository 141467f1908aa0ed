//! The Linux release binary in a real window: started under Xvfb (Mesa's software renderer),
//! it draws the wizard, a screenshot of that window goes to screenshots/0-real-window-linux.png
//! (README shows it), and closed the way a window manager closes it (WM_DELETE_WINDOW), it
//! exits with status 0. With Vulkan unusable it draws through wgpu's OpenGL, and remembers that
//! for the next start; with EGL unusable too, through eframe's glow renderer (GLX).

use crate::xvfb::{Xvfb, Xwd};
use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{AtomEnum, ClientMessageEvent, ConnectionExt, EventMask, Window};
use x11rb::rust_connection::RustConnection;

const TITLE: &[u8] = b"CUDA Triage";

/// The top-level window titled CUDA Triage: its id and (x, y, width, height) on the screen.
fn find_window(
    conn: &RustConnection,
    root: Window,
) -> Option<(Window, (usize, usize, usize, usize))> {
    let net_name = conn
        .intern_atom(false, b"_NET_WM_NAME")
        .ok()?
        .reply()
        .ok()?
        .atom;
    let children = conn.query_tree(root).ok()?.reply().ok()?.children;
    children.into_iter().find_map(|w| {
        let titled = [AtomEnum::WM_NAME.into(), net_name]
            .into_iter()
            .any(|name| {
                conn.get_property(false, w, name, AtomEnum::ANY, 0, 64)
                    .ok()
                    .and_then(|c| c.reply().ok())
                    .is_some_and(|p| p.value == TITLE)
            });
        let g = conn.get_geometry(w).ok()?.reply().ok()?;
        let at = conn
            .translate_coordinates(w, root, 0, 0)
            .ok()?
            .reply()
            .ok()?;
        let rect = (
            at.dst_x.max(0) as usize,
            at.dst_y.max(0) as usize,
            g.width as usize,
            g.height as usize,
        );
        titled.then_some((w, rect))
    })
}

/// Asks the window to close, as a window manager's close button does.
fn close(conn: &RustConnection, window: Window) {
    let atom = |name: &[u8]| conn.intern_atom(false, name).unwrap().reply().unwrap().atom;
    let (protocols, delete) = (atom(b"WM_PROTOCOLS"), atom(b"WM_DELETE_WINDOW"));
    let event = ClientMessageEvent::new(32, window, protocols, [delete, 0, 0, 0, 0]);
    conn.send_event(false, window, EventMask::NO_EVENT, event)
        .unwrap();
    conn.flush().unwrap();
}

/// The release binary started on `xvfb` showing a seed machine file, with its data folders (and
/// so the renderer it remembers) in `home` and `envs` set; no renderer is forced.
fn start(xvfb: &Xvfb, home: &Path, envs: &[(&str, &str)]) -> Child {
    let exe = crate::support::release_binary(None);
    // A machine file given by a relative path: the window shows the same text everywhere.
    Command::new(exe)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "--machine",
            "tests/fixtures/machines/win-cuda-tf-torch/machine.toml",
        ])
        .env("DISPLAY", &xvfb.display)
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WGPU_BACKEND")
        .env_remove("CUDA_TRIAGE_RENDERER")
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .envs(envs.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits (two minutes at most) for the window titled CUDA Triage to be drawn: the welcome text,
/// not one cleared colour. Returns the window, its rectangle and the screen dump.
fn drawn_window(
    app: &mut Child,
    xvfb: &Xvfb,
    conn: &RustConnection,
    root: Window,
) -> (Window, (usize, usize, usize, usize), Xwd) {
    for _ in 0..240 {
        std::thread::sleep(Duration::from_millis(500));
        if let Ok(Some(status)) = app.try_wait() {
            let mut stderr = String::new();
            let _ = app.stderr.take().unwrap().read_to_string(&mut stderr);
            panic!(
                "the wizard exited ({status}) instead of opening its window (under Xvfb it needs \
                 Mesa: Debian mesa-vulkan-drivers, libegl1, libgl1, libglx-mesa0; .ci/run installs \
                 them): {stderr}"
            );
        }
        if let Some((window, rect)) = find_window(conn, root) {
            // The dump is of the whole screen.
            let dump = xvfb.dump();
            if dump.colours(rect.0 + rect.2, rect.1 + rect.3) > 20 {
                return (window, rect, dump);
            }
        }
    }
    let _ = app.kill();
    panic!("no window titled CUDA Triage was drawn within two minutes");
}

/// Closes the window as a window manager does and waits (a minute at most) for the wizard to
/// exit: its status and what it said on stderr.
fn close_and_wait(conn: &RustConnection, window: Window, mut app: Child) -> (ExitStatus, String) {
    close(conn, window);
    for _ in 0..120 {
        std::thread::sleep(Duration::from_millis(500));
        if let Ok(Some(status)) = app.try_wait() {
            let out = app.wait_with_output().unwrap();
            return (status, String::from_utf8_lossy(&out.stderr).into_owned());
        }
    }
    let _ = app.kill();
    panic!("the wizard did not exit within a minute of being closed");
}

/// Opens the wizard with `envs`, closes it, and returns what it said on stderr (it must have
/// exited with 0).
fn open_and_close(xvfb: &Xvfb, home: &Path, envs: &[(&str, &str)]) -> String {
    let mut app = start(xvfb, home, envs);
    let (conn, screen) = x11rb::connect(Some(&xvfb.display)).expect("connects to Xvfb");
    let root = conn.setup().roots[screen].root;
    let (window, _, _) = drawn_window(&mut app, xvfb, &conn, root);
    let (status, stderr) = close_and_wait(&conn, window, app);
    assert!(
        status.success(),
        "closing exits with 0, not {status}: {stderr}"
    );
    stderr
}

/// The line of the log that names the renderer which drew the window.
fn drawn_with(stderr: &str) -> &str {
    stderr
        .lines()
        .find(|l| l.starts_with("cuda-triage: window drawn with "))
        .unwrap_or_else(|| panic!("the log names no renderer: {stderr}"))
}

#[test]
fn the_release_binary_opens_a_real_window_and_exits_cleanly_when_closed() {
    let xvfb = Xvfb::start();
    let home = tempfile::tempdir().unwrap();
    let mut app = start(&xvfb, home.path(), &[]);
    let (conn, screen) = x11rb::connect(Some(&xvfb.display)).expect("connects to Xvfb");
    let root = conn.setup().roots[screen].root;
    let (window, rect, dump) = drawn_window(&mut app, &xvfb, &conn, root);
    dump.save_png(
        rect,
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("screenshots/0-real-window-linux.png"),
    );
    let (status, stderr) = close_and_wait(&conn, window, app);
    assert!(
        status.success(),
        "closing the window exits with 0, not {status}: {stderr}"
    );
    drawn_with(&stderr);
}

/// Vulkan unusable (the loader pointed at no driver, with lavapipe installed): wgpu's Vulkan
/// fails, wgpu on OpenGL (EGL, llvmpipe) draws, and the next start goes straight to it.
#[test]
fn without_vulkan_the_window_opens_through_opengl_and_the_next_start_goes_straight_there() {
    let xvfb = Xvfb::start();
    let home = tempfile::tempdir().unwrap();
    let no_vulkan = [("VK_ICD_FILENAMES", "/nonexistent/icd.json")];

    let log = open_and_close(&xvfb, home.path(), &no_vulkan);
    assert!(
        log.contains("cuda-triage: wgpu on Vulkan could not draw the window"),
        "{log}"
    );
    assert!(
        drawn_with(&log).starts_with("cuda-triage: window drawn with wgpu on OpenGL ("),
        "{log}"
    );
    let remembered = home.path().join("data/cudatriage/renderer.toml");
    let text = std::fs::read_to_string(&remembered)
        .unwrap_or_else(|e| panic!("{}: {e}", remembered.display()));
    assert!(text.contains("renderer = \"gl\""), "{text}");
    assert!(
        text.contains("renderer = \"vulkan\""),
        "the failure is kept: {text}"
    );

    // The second start pays for no failed attempt, and still tells what failed once.
    let log = open_and_close(&xvfb, home.path(), &no_vulkan);
    assert!(!log.contains("could not draw"), "{log}");
    let line = drawn_with(&log);
    assert!(line.contains("wgpu on OpenGL ("), "{log}");
    assert!(line.contains("failed first: vulkan: "), "{log}");
}

/// Vulkan and EGL both unusable (no EGL vendor library for glvnd): every wgpu path fails, and
/// eframe's glow renderer draws through GLX.
#[test]
fn without_vulkan_or_egl_the_window_opens_through_glow() {
    let xvfb = Xvfb::start();
    let home = tempfile::tempdir().unwrap();
    let log = open_and_close(
        &xvfb,
        home.path(),
        &[
            ("VK_ICD_FILENAMES", "/nonexistent/icd.json"),
            ("__EGL_VENDOR_LIBRARY_FILENAMES", "/nonexistent/egl.json"),
        ],
    );
    for tried in [
        "wgpu on Vulkan",
        "wgpu on OpenGL",
        "wgpu on a software adapter",
    ] {
        assert!(
            log.contains(&format!("cuda-triage: {tried} could not draw the window")),
            "{tried}: {log}"
        );
    }
    assert!(
        drawn_with(&log).starts_with("cuda-triage: window drawn with OpenGL through glow ("),
        "{log}"
    );
}

/// Nothing can draw (no Vulkan, no EGL, and GLX asked for indirect rendering, which Xvfb refuses):
/// from a console the wizard says each renderer it tried and why, then prints the text scan;
/// nothing is remembered.
#[test]
fn when_no_renderer_can_draw_a_console_gets_each_one_tried_and_the_text_scan() {
    let xvfb = Xvfb::start();
    let home = tempfile::tempdir().unwrap();
    let mut app = start(
        &xvfb,
        home.path(),
        &[
            ("VK_ICD_FILENAMES", "/nonexistent/icd.json"),
            ("__EGL_VENDOR_LIBRARY_FILENAMES", "/nonexistent/egl.json"),
            ("LIBGL_ALWAYS_INDIRECT", "1"),
        ],
    );
    let mut status = None;
    for _ in 0..240 {
        std::thread::sleep(Duration::from_millis(500));
        if let Ok(Some(s)) = app.try_wait() {
            status = Some(s);
            break;
        }
    }
    let Some(status) = status else {
        let _ = app.kill();
        panic!("the wizard is still running after two minutes: a renderer drew after all");
    };
    let out = app.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        stderr.contains(
            "cuda-triage: could not open a window (no renderer could draw it; tried wgpu on Vulkan: "
        ),
        "{stderr}"
    );
    for tried in [
        "; wgpu on OpenGL: ",
        "; wgpu on a software adapter: ",
        "; OpenGL through glow: ",
    ] {
        assert!(stderr.contains(tried), "{tried}: {stderr}");
    }
    assert!(stderr.contains("printing a text scan instead"), "{stderr}");
    assert!(stdout.starts_with("Machine: windows"), "{stdout}");
    // The scan's exit code (this seed machine has warnings only), not the tool failing (2).
    assert_eq!(status.code(), Some(0), "{stdout}{stderr}");
    assert!(!home.path().join("data/cudatriage/renderer.toml").exists());
}
