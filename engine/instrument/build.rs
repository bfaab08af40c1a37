//! Records the compiler version, so every run row can name the compiler that
//! built Vernier's kernels (SPEC E9).

use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| "rustc (version not available)".into());
    println!("cargo:rustc-env=VERNIER_RUSTC_VERSION={version}");
    println!("cargo:rerun-if-env-changed=RUSTC");
}
