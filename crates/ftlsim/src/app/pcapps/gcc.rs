//! `gcc`: repeated builds of a source tree (programs 3, 5 and 6).
//!
//! * Files are one extent of 8 pages (sources and objects hold 1–8 pages;
//!   the rest of their extent stays unwritten).
//! * The tree: S sources (S = region/22), in 256 modules. The first step
//!   writes every source (the checkout, program 5) and builds them all.
//! * A build: a third of the sources, drawn at random, are rewritten
//!   (program 5, PC `EDIT`); then each changed source is compiled by a
//!   short-lived compiler process (program 3): it writes the preprocessed
//!   source and the assembly (temporaries, deleted when it is done) and
//!   the object (the old object is deleted), then exits. A linker process
//!   (program 6) writes the binary (a quarter of the objects' size, in
//!   extents) and deletes the previous one.
//! * Compilations run four at a time (make -j4), one thread each (`Emit`).
//! * PCs: each module has its own call sites for its temporaries and its
//!   object (3 × 256 compiler PCs: many PCs, as a build system's tools
//!   give), so the PC attribute table's size matters; and every compiler
//!   and linker process ends, so its persistence matters.
//! * Lifetimes: temporaries die within their compilation (a few pages of
//!   writes); sources and objects live about three builds; the binary one.
//!   Manual streams: temporaries 1, binary 2, objects 3, sources 4.

use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::{tag, Emit, Extents, File, Model};
use crate::rng;

const COMPILER: u32 = 3;
const EDITOR: u32 = 5;
const LINKER: u32 = 6;
const EXTENT_PAGES: u64 = 8;
const MODULES: u64 = 256;
/// Compiler sites: per module, preprocessed source, assembly, object.
const SITES_PER_MODULE: u32 = 3;
/// Compiler jobs that run at once (make -j).
const JOBS: usize = 4;

struct Source {
    pages: u64,
    file: File,
    object: Option<File>,
}

pub struct Gcc {
    space: Extents,
    sources: Vec<Source>,
    binary: Vec<File>,
    built: bool,
    rng: Xoshiro256PlusPlus,
}

impl Gcc {
    pub fn new(base: u64, region_pages: u64, seed: u64) -> Self {
        let mut rng = rng::stream(seed, "gcc");
        let count = (region_pages / 22).max(4);
        let mut space = Extents::new(base, region_pages, EXTENT_PAGES);
        let sources = (0..count)
            .map(|_| Source {
                pages: rng.random_range(1..=EXTENT_PAGES),
                file: File {
                    extents: vec![space.take()],
                    ..File::default()
                },
                object: None,
            })
            .collect();
        Self {
            space,
            sources,
            binary: Vec::new(),
            built: false,
            rng,
        }
    }

    /// Writes `pages` of a new one-extent file.
    fn small_file(&mut self, pages: u64, context: u64, emit: &mut Emit) -> File {
        let at = self.space.take();
        emit.write(at, pages, context, EXTENT_PAGES);
        File {
            extents: vec![at],
            thread: emit.current,
            batch: emit.batch,
        }
    }

    fn edit(&mut self, i: usize, emit: &mut Emit) {
        let pages = self.sources[i].pages;
        let at = self.sources[i].file.extents[0];
        emit.write(at, pages, tag(EDITOR, 1, 4), EXTENT_PAGES);
    }

    fn compile(&mut self, i: usize, emit: &mut Emit) {
        let module = (i as u64 % MODULES) as u32;
        let site = |k: u32| 16 + module * SITES_PER_MODULE + k;
        let pages = self.sources[i].pages;
        let pre = self.small_file(EXTENT_PAGES, tag(COMPILER, site(0), 1), emit);
        let asm = self.small_file(
            pages.div_ceil(2).max(1) * 2,
            tag(COMPILER, site(1), 1),
            emit,
        );
        let obj_pages = self.rng.random_range(1..=EXTENT_PAGES);
        let obj = self.small_file(obj_pages, tag(COMPILER, site(2), 3), emit);
        pre.delete(&mut self.space, emit);
        asm.delete(&mut self.space, emit);
        if let Some(old) = self.sources[i].object.replace(obj) {
            old.delete(&mut self.space, emit);
        }
        emit.exit(COMPILER);
    }

    fn link(&mut self, emit: &mut Emit) {
        let extents = (self.sources.len() as u64 / 8).max(1);
        let new = File::write(&mut self.space, extents, tag(LINKER, 1, 2), 32, 0, emit);
        for old in std::mem::replace(&mut self.binary, vec![new]) {
            old.delete(&mut self.space, emit);
        }
        emit.exit(LINKER);
    }
}

impl Model for Gcc {
    fn step(&mut self, emit: &mut Emit) {
        let changed: Vec<usize> = if self.built {
            (0..self.sources.len())
                .filter(|_| self.rng.random_bool(1.0 / 3.0))
                .collect()
        } else {
            self.built = true;
            (0..self.sources.len()).collect()
        };
        self.space.settle();
        for &i in &changed {
            self.edit(i, emit);
        }
        emit.exit(EDITOR);
        emit.merge();
        // make -j: JOBS compilations at a time, one thread each.
        for jobs in changed.chunks(JOBS) {
            for (t, &i) in jobs.iter().enumerate() {
                emit.on(t);
                self.compile(i, emit);
            }
            emit.merge();
            self.space.settle();
        }
        self.link(emit);
    }
}
