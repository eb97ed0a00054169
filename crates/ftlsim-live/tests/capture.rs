//! The capture library on its test program (capture/pc_paths.c): writes
//! through path_a and path_b, four each, to a.dat and b.dat. Same call path
//! → same PC in two runs (ASLR moves the addresses between them); different
//! paths → different PCs; both signatures (stack scan and frame walk).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// File name → the set of (pc_scan, pc_walk) of its pwrites.
fn pcs_by_file(log: &str) -> BTreeMap<String, BTreeSet<(String, String)>> {
    let mut names = BTreeMap::new();
    let mut out: BTreeMap<String, BTreeSet<(String, String)>> = BTreeMap::new();
    for line in log.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        match f[0] {
            "F" => {
                let name = Path::new(f[3])
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                names.insert((f[1].to_string(), f[2].to_string()), name);
            }
            "E" if f[4] == "pwrite" => {
                let name = names[&(f[5].to_string(), f[6].to_string())].clone();
                out.entry(name)
                    .or_default()
                    .insert((f[9].to_string(), f[10].to_string()));
            }
            _ => {}
        }
    }
    out
}

#[test]
fn same_path_same_pc_across_runs_different_paths_differ() {
    let dir = std::env::temp_dir().join(format!("ftlsim-capture-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut runs = Vec::new();
    for run in 0..2 {
        let log = dir.join(format!("run{run}.cap"));
        let prog = ftlsim_live::capture::test_program();
        let status = ftlsim_live::capture::capture(
            &log,
            &[prog.as_os_str().to_owned(), dir.as_os_str().to_owned()],
            true,
        )
        .unwrap();
        assert!(status.success());
        runs.push(pcs_by_file(&std::fs::read_to_string(&log).unwrap()));
    }
    let _ = std::fs::remove_dir_all(&dir);
    for r in &runs {
        assert_eq!(r["a.dat"].len(), 1, "one PC pair for path_a: {r:?}");
        assert_eq!(r["b.dat"].len(), 1, "one PC pair for path_b: {r:?}");
        let (a, b) = (r["a.dat"].first().unwrap(), r["b.dat"].first().unwrap());
        assert_ne!(a.0, b.0, "stack-scan PCs must tell the paths apart");
        assert_ne!(a.1, b.1, "frame-walk PCs must tell the paths apart");
    }
    assert_eq!(
        runs[0], runs[1],
        "the same paths give the same PCs in a second run"
    );
}
