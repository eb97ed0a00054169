//! The ftlsim side of `scripts/sepbit-probe.sh`: a trace (Alibaba's CSV,
//! `PROBE_TRACE`) through a scheme (`PROBE_SCHEME`, its defaults) over a
//! log with GC off, as the script's Java driver replays it through SepBIT's
//! own `Log`: each class appends to its open segment of
//! `PROBE_SEGMENT_PAGES` pages, a full one is sealed and the next write
//! opens another. Writes each user write's segment to `PROBE_OUT`, one a
//! line, for the script to compare with SepBIT's (the same partition of the
//! writes, up to numbering, means the same decisions). Ignored: it needs
//! those files.

use std::io::{BufRead, BufWriter, Write};

use super::{Classes, PlacementSchemeConfig, SchemeSpace, UserWrite};
use crate::flash::Lpn;

fn var(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set"))
}

#[test]
#[ignore = "scripts/sepbit-probe.sh runs it"]
fn decisions_of_a_trace() {
    let config: PlacementSchemeConfig =
        toml::from_str(&format!("type = \"{}\"", var("PROBE_SCHEME"))).expect("a scheme");
    let logical_pages: u32 = var("PROBE_LOGICAL_PAGES").parse().expect("pages");
    let block_pages: u32 = var("PROBE_SEGMENT_PAGES").parse().expect("pages");
    // Segments enough for every write of the trace.
    let blocks: u32 = var("PROBE_SEGMENTS").parse().expect("a count");
    let space = SchemeSpace {
        logical_pages,
        block_pages,
        blocks,
        seed: 42,
    };
    let mut classes = Classes::new(&config, blocks, space);
    let mut open: Vec<Option<u32>> = vec![None; usize::from(config.classes())];
    // Each segment's writes (page, when), for its valid pages at its seal.
    let mut members: Vec<Vec<(u32, u64)>> = vec![Vec::new(); blocks as usize];
    let mut next_block = 0u32;
    let mut segment_of = vec![u32::MAX; logical_pages as usize];
    let mut written_at = vec![0u64; logical_pages as usize];
    let mut now_pages = 0u64;
    let out = std::fs::File::create(var("PROBE_OUT")).expect("PROBE_OUT");
    let mut out = BufWriter::new(out);
    let trace = std::fs::File::open(var("PROBE_TRACE")).expect("PROBE_TRACE");
    for line in std::io::BufReader::new(trace).lines() {
        let line = line.expect("a line");
        let f: Vec<&str> = line.split(',').collect();
        if f.get(1) != Some(&"W") {
            continue;
        }
        let [offset, length, time_us]: [u64; 3] =
            [2, 3, 4].map(|i| f[i].trim().parse().expect("a number"));
        // SepBIT's pages: the first 4 KiB block touched to the last.
        let lpn = offset / 4096;
        let pages = ((offset + length).div_ceil(4096) - lpn) as u32;
        classes.request(lpn, pages, Some(time_us * 1_000), now_pages, logical_pages);
        for page in lpn..lpn + u64::from(pages) {
            let l = page as usize;
            now_pages += 1;
            let lpn = Lpn::new(page as u32);
            let lifespan = (segment_of[l] != u32::MAX).then(|| {
                classes.invalidated(lpn, segment_of[l]);
                now_pages - written_at[l]
            });
            let class = classes.user_class(&UserWrite {
                lpn,
                stream: 0,
                write_index: now_pages - 1,
                lifespan_pages: lifespan,
                live_pages: 0,
            });
            let block = *open[usize::from(class)].get_or_insert_with(|| {
                next_block += 1;
                classes.opened(next_block - 1, class, now_pages);
                next_block - 1
            });
            segment_of[l] = block;
            written_at[l] = now_pages;
            let written = &mut members[block as usize];
            written.push((page as u32, now_pages));
            if written.len() == block_pages as usize {
                open[usize::from(class)] = None;
                let written = std::mem::take(written);
                classes.sealed(block, |valid| {
                    valid.extend(
                        written
                            .iter()
                            .filter(|&&(p, at)| written_at[p as usize] == at)
                            .map(|&(p, _)| Lpn::new(p)),
                    );
                });
            }
            writeln!(out, "{block}").expect("PROBE_OUT");
        }
    }
}
