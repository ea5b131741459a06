//! How the window paints on a Linux machine without a GPU (a VM, a container, a remote desktop,
//! a CI runner under Xvfb): on the CPU, not through a software OpenGL.
//!
//! WebKitGTK paints a page's tiles through OpenGL by default. With no GPU, that OpenGL is Mesa's
//! llvmpipe, which rasterises on the CPU in threads of its own, and the page's thread waits for
//! them: on a 2-core machine busy reading a 200 MB transcript, switching tabs held the page for
//! 200–950 ms while the page's own work (React, layout) took 20 ms. Skia painting on the CPU
//! (`WEBKIT_SKIA_ENABLE_CPU_RENDERING=1`) draws the same tiles without that detour; the e2e
//! long-task probe measures the difference (docs/PERFORMANCE.md).
//!
//! WebKit reads the variable once, in the renderer process, which inherits the app's environment:
//! `main` sets it before any thread starts. A user who set any of WebKit's rendering
//! variables chose for themselves, and is left alone. What a GPU machine does is left to WebKit.

use std::ffi::OsString;
use std::path::Path;

/// The variable that makes WebKitGTK's renderer paint with Skia on the CPU.
pub const CPU_RENDERING: &str = "WEBKIT_SKIA_ENABLE_CPU_RENDERING";

/// WebKit's rendering variables: any of them set means the user chose how the window paints.
const USER_CHOICES: [&str; 5] = [
    CPU_RENDERING,
    "WEBKIT_DISABLE_COMPOSITING_MODE",
    "WEBKIT_FORCE_COMPOSITING_MODE",
    "WEBKIT_DISABLE_DMABUF_RENDERER",
    "LIBGL_ALWAYS_SOFTWARE",
];

/// Whether the window should paint on the CPU: no GPU render node here (`render_node`), and no
/// rendering variable set by the user (`var` reads the environment).
pub fn paint_on_cpu(var: impl Fn(&str) -> Option<OsString>, render_node: bool) -> bool {
    !render_node && USER_CHOICES.iter().all(|name| var(name).is_none())
}

/// Whether `dri` (`/dev/dri` here) holds a DRM render node (`renderD128`, …): the device a GPU
/// driver's OpenGL draws through. Without one, OpenGL here is a software rasteriser.
pub fn has_render_node(dri: &Path) -> bool {
    std::fs::read_dir(dri).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}

/// The variable to start the app with on a machine without a GPU (see the module note), unless
/// a GPU is here or the user chose.
pub fn wanted() -> Option<(&'static str, &'static str)> {
    paint_on_cpu(
        |name| std::env::var_os(name),
        has_render_node(Path::new("/dev/dri")),
    )
    .then_some((CPU_RENDERING, "1"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(set: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            set.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn without_a_render_node_the_window_paints_on_the_cpu_unless_the_user_chose() {
        assert!(
            paint_on_cpu(env(&[("HOME", "/root")]), false),
            "no GPU and no choice of the user's: painted on the CPU"
        );
        assert!(
            !paint_on_cpu(env(&[]), true),
            "a GPU's render node: WebKit paints as it chooses"
        );
        for name in USER_CHOICES {
            assert!(
                !paint_on_cpu(env(&[(name, "0")]), false),
                "{name} set by the user (even to 0) is their choice, kept"
            );
        }
    }

    #[test]
    fn a_render_node_is_a_renderd_device_in_the_folder() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        assert!(
            !has_render_node(&dir.path().join("absent")),
            "no /dev/dri at all (a container): no render node"
        );
        std::fs::write(dir.path().join("card0"), "").expect("a stand-in device file");
        assert!(
            !has_render_node(dir.path()),
            "a display card without a render node draws no OpenGL of its own"
        );
        std::fs::write(dir.path().join("renderD128"), "").expect("a stand-in device file");
        assert!(
            has_render_node(dir.path()),
            "renderD128 is a GPU's render node"
        );
    }
}
