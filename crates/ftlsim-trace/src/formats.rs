//! The format table: every trace format this crate reads, one entry each.
//!
//! An entry holds all that the rest of the crate knows about a format: its
//! name and aliases (for [`Format::from_str`]), its line of help, where
//! detection tries it, and how its files are recognised and read. The
//! [`Format`] constants, [`Format::ALL`], [`Format::NAMES`] and the `Debug`,
//! `Display` and `FromStr` of [`Format`] all come from this table, and
//! detection ([`crate::detect`]) and opening ([`crate::open()`]) know formats
//! only through it, so a new format is its module plus one entry here (and
//! its `mod` line in lib.rs).
//!
//! The entries are written inside [`format_table!`], which numbers them: an
//! entry's Rust name (`Msr`) becomes the constant `Format::Msr`, a handle on
//! the entry's position, so that the name and the data cannot disagree.
//! Entries name their module's items by full path (`crate::msr::MsrParser`),
//! so that an entry is all a new format adds to this file.

use std::fmt;
use std::str::FromStr;

use crate::error::TraceError;
use crate::reader::{Format, ReaderOptions, Stream, TraceReader};
use crate::text::{self, LineParser, Score};

/// Builds a format's reader over a decompressed stream.
pub(crate) type OpenFn = fn(Stream, &ReaderOptions) -> Result<Box<dyn TraceReader>, TraceError>;

/// Scores a text format on detection's sample lines (line number, text);
/// `None` when the format cannot be set up with the options.
pub(crate) type ScoreFn = fn(&[(u64, &str)], &ReaderOptions) -> Option<Score>;

/// One format's entry in the table.
pub(crate) struct FormatSpec {
    /// The name [`Format::from_str`] accepts and messages use.
    pub(crate) name: &'static str,
    /// Other names [`Format::from_str`] accepts (lowercase).
    pub(crate) aliases: &'static [&'static str],
    /// One line about the format and its units, for CLI help.
    pub(crate) description: &'static str,
    /// Where detection tries the format: [`Format::ALL`] is the table sorted
    /// by this (unique) number. It also orders the formats named in a
    /// detection error.
    pub(crate) detect_order: u8,
    /// How files of the format are recognised and read.
    pub(crate) reading: Reading,
}

/// How a format's files are recognised and read.
pub(crate) enum Reading {
    /// Binary records: recognised by the first bytes of the decompressed
    /// file (tried before any text format, since text checks reject binary
    /// data).
    Binary {
        /// Whether a file starting with these bytes is of this format.
        sniff: fn(&[u8]) -> bool,
        /// Its reader.
        open: OpenFn,
    },
    /// Lines, read by a [`LineParser`]; see [`Reading::text`].
    Text {
        /// The parser on detection's sample lines.
        score: ScoreFn,
        /// Its reader.
        open: OpenFn,
    },
}

impl Reading {
    /// The entry of a line format parsed by `P`. Both functions are
    /// instances for `P`: the table's function pointer is called once per
    /// file, and inside, every line's parse is a static call.
    const fn text<P: LineParser + 'static>() -> Reading {
        Reading::Text {
            score: text::score::<P>,
            open: text::open::<P>,
        }
    }

    /// The function that builds the reader.
    pub(crate) fn open(&self) -> OpenFn {
        match *self {
            Reading::Binary { open, .. } | Reading::Text { open, .. } => open,
        }
    }
}

/// Declares the table: for each entry, its doc and Rust name, then its
/// [`FormatSpec`]. Generates a `Format` constant per entry, numbered by its
/// position, with the entry's doc; the Rust names (for `Debug`); and `TABLE`.
macro_rules! format_table {
    ($($(#[$doc:meta])* $ident:ident: $spec:expr,)+) => {
        /// Positions in `TABLE`, to number the constants.
        #[repr(u8)]
        enum Position {
            $($ident,)+
        }

        // Named like the enum variants they replace, so callers did not change.
        #[allow(non_upper_case_globals)]
        impl Format {
            $($(#[$doc])* pub const $ident: Format = Format(Position::$ident as u8);)+
        }

        /// The Rust name of each entry, for `Debug`.
        const IDENTS: &[&str] = &[$(stringify!($ident),)+];

        /// The format table, in the order CLI help lists the formats
        /// ([`Format::NAMES`]), which is also the order of `Ord` on [`Format`].
        const TABLE: &[FormatSpec] = &[$($spec,)+];
    };
}

// The entries, in the order help lists them. A new one: a doc line, the Rust
// name of its constant, and its spec; `detect_order` must be unused (the
// table_is_consistent test checks that, and that no name is taken twice).
format_table! {
    /// MSR Cambridge CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
    Msr: FormatSpec {
        name: "msr",
        aliases: &[],
        description: "MSR Cambridge CSV: FILETIME 100 ns ticks, byte offset and size",
        detect_order: 40,
        reading: Reading::text::<crate::msr::MsrParser>(),
    },
    /// FIU: `time_ns pid process lba_sector size_sectors R/W major minor md5...`.
    Fiu: FormatSpec {
        name: "fiu",
        aliases: &[],
        description: "FIU: ns, 512 B sectors, MD5 per sector or per 4 KiB page",
        detect_order: 50,
        reading: Reading::text::<crate::fiu::FiuParser>(),
    },
    /// blkparse default text output.
    Blkparse: FormatSpec {
        name: "blkparse",
        aliases: &["blktrace"],
        description: "blkparse text: seconds, 512 B sectors; replays one action (D)",
        detect_order: 60,
        reading: Reading::text::<crate::blkparse::BlkparseParser>(),
    },
    /// DiskSim / MQSim ASCII: `time device lba_sector size_sectors type`.
    Disksim: FormatSpec {
        name: "disksim",
        aliases: &["mqsim", "ascii"],
        description: "DiskSim/MQSim ASCII: time (--time-unit, default ms), sectors, \
                      type bit 0 = read",
        detect_order: 70,
        reading: Reading::text::<crate::disksim::DisksimParser>(),
    },
    /// SPC / UMass: `ASU,LBA,Size,Opcode,Timestamp`.
    Spc: FormatSpec {
        name: "spc",
        aliases: &["umass"],
        description: "SPC: ASU, LBA in 512 B sectors, size bytes, r/w, seconds",
        detect_order: 80,
        reading: Reading::text::<crate::spc::SpcParser>(),
    },
    /// Alibaba block traces: `device_id,opcode,offset,length,timestamp`.
    Alibaba: FormatSpec {
        name: "alibaba",
        aliases: &["ali"],
        description: "Alibaba block CSV: device, R/W, byte offset and length, microseconds",
        detect_order: 90,
        reading: Reading::text::<crate::alibaba::AlibabaParser>(),
    },
    /// Tencent CBS: `Timestamp,Offset,Size,IOType,VolumeID`.
    Tencent: FormatSpec {
        name: "tencent",
        aliases: &["cbs"],
        description: "Tencent CBS CSV: seconds, sector offset and size, 0 read/1 write, volume",
        detect_order: 100,
        reading: Reading::text::<crate::tencent::TencentParser>(),
    },
    /// fio iolog version 2 or 3.
    Fio: FormatSpec {
        name: "fio",
        aliases: &["iolog"],
        description: "fio iolog v2/v3: bytes; v3 timestamps in microseconds (--time-unit)",
        // Before the CSV formats: its first line names it.
        detect_order: 30,
        reading: Reading::text::<crate::fio::FioParser>(),
    },
    /// libCacheSim block CSV (`version,time,op,size,lbn`, CloudPhysics).
    Libcachesim: FormatSpec {
        name: "libcachesim",
        aliases: &["cloudphysics"],
        description: "libCacheSim block CSV: seconds, SCSI opcode hex, size bytes, lbn in 512 B",
        detect_order: 110,
        reading: Reading::text::<crate::libcachesim::LibcachesimParser>(),
    },
    /// ftlsim's own binary format (see [`crate::native`]).
    Native: FormatSpec {
        name: "native",
        aliases: &["ftlsim"],
        description: "ftlsim native binary trace",
        detect_order: 10,
        reading: Reading::Binary {
            sniff: crate::native::sniff,
            open: crate::native::open,
        },
    },
    /// CloudPhysics / VMware vscsi binary records, versions 1 and 2 (see
    /// [`crate::vscsi`]).
    Vscsi: FormatSpec {
        name: "vscsi",
        aliases: &[],
        description: "CloudPhysics/VMware vscsi binary, v1 or v2: microseconds, lbn in 512 B, \
                      len bytes, SCSI opcode",
        detect_order: 20,
        reading: Reading::Binary {
            sniff: |head| crate::vscsi::sniff(head).is_some(),
            open: crate::vscsi::open,
        },
    },
}

/// Number of formats.
const COUNT: usize = TABLE.len();

impl Format {
    /// Every format, in the order detection tries them.
    pub const ALL: [Format; COUNT] = detection_order();

    /// Every format name, for CLI help: `msr, fiu, blkparse, ...`.
    pub const NAMES: [&'static str; COUNT] = names();

    /// The name accepted by [`Format::from_str`].
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// One line about the format and its units, for CLI help.
    pub fn description(self) -> &'static str {
        self.spec().description
    }

    /// The format's entry in the table.
    pub(crate) fn spec(self) -> &'static FormatSpec {
        &TABLE[usize::from(self.0)]
    }
}

/// The table's names, in table order.
const fn names() -> [&'static str; COUNT] {
    let mut out = [""; COUNT];
    let mut i = 0;
    while i < COUNT {
        out[i] = TABLE[i].name;
        i += 1;
    }
    out
}

/// The formats sorted by `detect_order` (a stable insertion sort: `const`
/// code has no `sort`).
const fn detection_order() -> [Format; COUNT] {
    let mut out = [Format(0); COUNT];
    let mut i = 0;
    while i < COUNT {
        out[i] = Format(i as u8);
        let mut j = i;
        while j > 0
            && TABLE[out[j - 1].0 as usize].detect_order > TABLE[out[j].0 as usize].detect_order
        {
            let earlier = out[j - 1];
            out[j - 1] = out[j];
            out[j] = earlier;
            j -= 1;
        }
        i += 1;
    }
    out
}

impl fmt::Debug for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(IDENTS[usize::from(self.0)])
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = TraceError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        let lower = lower.as_str();
        TABLE
            .iter()
            .position(|spec| spec.name == lower || spec.aliases.contains(&lower))
            .map(|i| Format(i as u8))
            .ok_or_else(|| {
                TraceError::Option(format!(
                    "unknown trace format `{s}` (expected one of: {})",
                    Format::NAMES.join(", ")
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_names_round_trip() {
        for name in Format::NAMES {
            let f: Format = name.parse().unwrap();
            assert_eq!(f.name(), name);
            assert!(Format::ALL.contains(&f));
        }
        assert_eq!(" CBS ".parse::<Format>().unwrap(), Format::Tencent);
        let err = "nope".parse::<Format>().unwrap_err().to_string();
        assert!(err.contains("msr, fiu"), "{err}");
    }

    /// What a new entry must keep true: one meaning per name, one place in
    /// detection per format.
    #[test]
    fn table_is_consistent() {
        let mut names: Vec<&str> = TABLE
            .iter()
            .flat_map(|spec| std::iter::once(spec.name).chain(spec.aliases.iter().copied()))
            .collect();
        for name in &names {
            assert_eq!(*name, name.to_ascii_lowercase(), "names are lowercase");
        }
        let all = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all, "a name or alias is used twice");
        let mut orders: Vec<u8> = TABLE.iter().map(|spec| spec.detect_order).collect();
        orders.sort_unstable();
        orders.dedup();
        assert_eq!(orders.len(), COUNT, "two formats share a detect_order");
        let mut all = Format::ALL.to_vec();
        all.sort();
        assert_eq!(all, (0..COUNT as u8).map(Format).collect::<Vec<_>>());
    }

    #[test]
    fn debug_shows_the_constant() {
        assert_eq!(format!("{:?}", Format::Libcachesim), "Libcachesim");
        assert_eq!(format!("{:?}", Some(Format::Native)), "Some(Native)");
    }
}
