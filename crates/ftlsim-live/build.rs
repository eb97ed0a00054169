//! Builds the program-context capture library (capture/ftlsim_capture.c)
//! as a shared object for LD_PRELOAD, and its test program, with the C
//! compiler the `cc` crate finds. The library is embedded in the binary
//! (`ftlsim capture` writes it out at run time).

use std::path::PathBuf;
use std::process::Command;

fn compile(args: &[&str], what: &str) {
    let compiler = cc::Build::new().pic(true).opt_level(2).get_compiler();
    let mut cmd: Command = compiler.to_command();
    cmd.args(args);
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler for {what}: {e}"));
    assert!(status.success(), "the C compiler failed on {what}");
}

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let lib = out.join("libftlsim_capture.so");
    let prog = out.join("pc_paths");
    println!("cargo:rerun-if-changed=capture/ftlsim_capture.c");
    println!("cargo:rerun-if-changed=capture/pc_paths.c");
    compile(
        &[
            "-shared",
            "-Wall",
            "-o",
            lib.to_str().unwrap(),
            "capture/ftlsim_capture.c",
            "-ldl",
            "-lpthread",
        ],
        "capture/ftlsim_capture.c",
    );
    compile(
        &["-o", prog.to_str().unwrap(), "capture/pc_paths.c"],
        "capture/pc_paths.c",
    );
}
