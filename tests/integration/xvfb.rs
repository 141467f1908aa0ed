//! A virtual X display for the tests that open a real window (the Linux release binary, the
//! Windows .exe under Wine): Xvfb started on a free display, and its screen read back with `xwd`
//! (Debian x11-apps), counted or cropped to a window and saved as PNG.

use std::io::BufRead;
use std::process::{Child, Command, Stdio};

/// A running Xvfb, stopped when dropped.
pub struct Xvfb {
    child: Child,
    /// `:N`, for `DISPLAY`.
    pub display: String,
}

impl Xvfb {
    /// Starts Xvfb with one 1280×800 screen (fails naming the package when it is missing).
    pub fn start() -> Xvfb {
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1280x800x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb starts (Debian xvfb; .ci/run installs it)");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        Xvfb {
            child,
            display: format!(":{}", line.trim()),
        }
    }

    /// The whole screen as an XWD dump.
    pub fn dump(&self) -> Xwd {
        let out = Command::new("xwd")
            .args(["-root", "-silent", "-display", &self.display])
            .output()
            .expect("xwd runs (Debian x11-apps; .ci/run installs it)");
        Xwd(out.stdout)
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An XWD screen dump (ZPixmap, 32 bits a pixel, as Xvfb's 24-bit screen gives).
pub struct Xwd(pub Vec<u8>);

impl Xwd {
    fn field(&self, i: usize) -> usize {
        self.0
            .get(4 * i..4 * i + 4)
            .map_or(0, |b| u32::from_be_bytes(b.try_into().unwrap()) as usize)
    }

    /// The pixel at (x, y) as 0xRRGGBB, if the dump holds it.
    fn pixel(&self, x: usize, y: usize) -> Option<u32> {
        let (header, bytes_per_line, colours) = (self.field(0), self.field(12), self.field(19));
        let at = header + 12 * colours + y * bytes_per_line + 4 * x;
        let b: [u8; 4] = self.0.get(at..at + 4)?.try_into().ok()?;
        // byte_order 0 is LSBFirst.
        let p = if self.field(7) == 0 {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        };
        let (r, g, bl) = (self.field(14), self.field(15), self.field(16));
        let channel = |mask: usize| {
            let mask = mask as u32;
            if mask == 0 {
                0
            } else {
                (p & mask) >> mask.trailing_zeros()
            }
        };
        Some(channel(r) << 16 | channel(g) << 8 | channel(bl))
    }

    /// Distinct colours in the top-left `w`×`h` pixels.
    pub fn colours(&self, w: usize, h: usize) -> usize {
        let mut seen = std::collections::HashSet::new();
        for y in 0..h {
            for x in 0..w {
                if let Some(p) = self.pixel(x, y) {
                    seen.insert(p);
                }
            }
        }
        seen.len()
    }

    /// Saves the `w`×`h` pixels at (x, y) as a PNG.
    pub fn save_png(&self, (x, y, w, h): (usize, usize, usize, usize), path: &std::path::Path) {
        let mut rgb = Vec::with_capacity(w * h * 3);
        for row in y..y + h {
            for col in x..x + w {
                let p = self.pixel(col, row).unwrap_or(0);
                rgb.extend_from_slice(&[(p >> 16) as u8, (p >> 8) as u8, p as u8]);
            }
        }
        image::RgbImage::from_raw(w as u32, h as u32, rgb)
            .expect("a whole image")
            .save(path)
            .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    }
}
