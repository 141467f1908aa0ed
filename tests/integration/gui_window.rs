//! The Linux release binary in a real window: started under Xvfb (Mesa's software renderer),
//! it draws the wizard, a screenshot of that window goes to screenshots/0-real-window-linux.png
//! (README shows it), and closed the way a window manager closes it (WM_DELETE_WINDOW), it
//! exits with status 0.

use crate::xvfb::Xvfb;
use std::process::{Command, Stdio};
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

#[test]
fn the_release_binary_opens_a_real_window_and_exits_cleanly_when_closed() {
    let exe = crate::support::release_binary(None);
    let xvfb = Xvfb::start();
    let home = tempfile::tempdir().unwrap();
    // A machine file given by a relative path: the window shows the same text everywhere.
    let mut app = Command::new(exe)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "--machine",
            "tests/fixtures/machines/win-cuda-tf-torch/machine.toml",
        ])
        .env("DISPLAY", &xvfb.display)
        .env_remove("WAYLAND_DISPLAY")
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (conn, screen) = x11rb::connect(Some(&xvfb.display)).expect("connects to Xvfb");
    let root = conn.setup().roots[screen].root;
    let mut shown = None;
    for _ in 0..240 {
        std::thread::sleep(Duration::from_millis(500));
        if let Ok(Some(status)) = app.try_wait() {
            let out = app.wait_with_output().unwrap();
            panic!(
                "the wizard exited ({status}) instead of opening its window: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        if let Some((window, rect)) = find_window(&conn, root) {
            // Drawn: the welcome text, not one cleared colour (the dump is of the whole screen).
            let dump = xvfb.dump();
            if dump.colours(rect.0 + rect.2, rect.1 + rect.3) > 20 {
                shown = Some((window, rect, dump));
                break;
            }
        }
    }
    let Some((window, rect, dump)) = shown else {
        let _ = app.kill();
        panic!("no window titled CUDA Triage was drawn within two minutes");
    };
    dump.save_png(
        rect,
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("screenshots/0-real-window-linux.png"),
    );
    close(&conn, window);
    let mut status = None;
    for _ in 0..120 {
        std::thread::sleep(Duration::from_millis(500));
        if let Ok(Some(s)) = app.try_wait() {
            status = Some(s);
            break;
        }
    }
    let Some(status) = status else {
        let _ = app.kill();
        panic!("the wizard did not exit within a minute of being closed");
    };
    let out = app.wait_with_output().unwrap();
    assert!(
        status.success(),
        "closing the window exits with 0, not {status}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
