//! Block trace readers and writers for ftlsim.
//!
//! This is the only ftlsim crate that reads files. It turns block I/O traces
//! of many formats into one record type ([`TraceRecord`], bytes and
//! nanoseconds), and records into page requests ([`PageRequest`], logical
//! pages) for the simulator.
//!
//! * Open: [`open()`] (plain, gzip or zstd, detected by magic bytes; format
//!   given in [`ReaderOptions::format`] or detected from the first lines).
//! * Replay: [`TraceReader::next_record`] (no allocation per record), or
//!   [`PageStream`] for page requests with device filter, compact mapping,
//!   capacity check and repeat.
//! * Inspect: [`TraceStats::from_reader`] and [`TraceStats::render_text`].
//! * Convert: [`convert()`] / [`convert_file`] to the [`native`] format or
//!   DiskSim ASCII (which reads back as DiskSim with the same time unit).
//! * Synthesize: [`FioDedupeWriter`], random writes with fio's
//!   `dedupe_percentage`.
//! * Annotate: [`annotate_file`], each written page's lifespan, in SepBIT's
//!   oracle format and ftlsim's sidecar ([`lifespan`]).
//!
//! Formats, units and the unaligned-request rule are documented in each
//! format module and in the crate README.
//!
//! Modules, from the bottom up (each uses only modules above it or beside it
//! on its line, never one below):
//!
//! * [`error`], [`record`]: errors, the record type, device ids, hashing.
//! * [`reader`]: the vocabulary every reader shares: [`Format`],
//!   [`TimeUnit`], [`ReaderOptions`], [`Compression`], the [`TraceReader`]
//!   trait. It imports no format module.
//! * `text` (line reader shared by the text formats) and the format modules:
//!   [`msr`], [`fiu`], [`blkparse`], [`disksim`], [`spc`], [`alibaba`],
//!   [`tencent`], [`fio`], [`libcachesim`], [`native`], [`vscsi`].
//! * `formats`: the format table, one entry per format module (name,
//!   aliases, help line, detection order, how to recognise and read it);
//!   [`Format`] is a handle on an entry. A new format is its module, its
//!   `mod` line below and its entry there.
//! * [`detect`]: format auto-detection, walking the table; [`spread`]:
//!   whole-second timestamps spread over their second (SepBIT's treatment
//!   of Tencent CBS), a wrapper over any reader.
//! * [`open`](mod@open): [`open()`], [`open_stream`], [`detect_file`]:
//!   decompression, detection, and construction of the format's reader
//!   (wrapped in [`spread`] when asked).
//! * [`pages`], [`stats`], [`convert`](mod@convert), [`synthetic`],
//!   [`lifespan`]: page requests, statistics, conversion, synthetic traces
//!   and lifespans, on top of [`open`](mod@open).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod alibaba;
pub mod blkparse;
pub mod convert;
pub mod detect;
pub mod disksim;
pub mod error;
pub mod fio;
pub mod fiu;
mod formats;
pub mod libcachesim;
pub mod lifespan;
pub mod msr;
pub mod native;
pub mod open;
pub mod output_file;
pub mod pages;
pub mod reader;
pub mod record;
pub mod spc;
pub mod spread;
pub mod stats;
pub mod synthetic;
pub mod tencent;
mod text;
pub mod vscsi;

pub use convert::{
    convert, convert_file, AlibabaWriter, ConvertSummary, DisksimWriter, OutputFormat, TraceWriter,
};
pub use error::{LineError, TraceError};
pub use lifespan::{
    annotate_file, LifespanOutputs, LifespanReader, LifespanSummary, LifespanWriter, Lifespans,
    SepbitOracleWriter,
};
pub use native::{NativeReader, NativeWriter, NATIVE_MAGIC, NATIVE_MIN_VERSION, NATIVE_VERSION};
pub use open::{detect_file, open, open_stream};
pub use output_file::{check_not_input, same_file, write_via_temp, OutputFile};
pub use pages::{MapError, PageMapper, PageOptions, PageRequest, PageStream, ReaderOpener};
pub use reader::{Compression, Format, ReaderOptions, Records, TimeUnit, TraceReader};
pub use record::{
    combine_fingerprints, device_id, fnv1a32, fnv1a64, mkdev, msr_device_id, page_span, TraceOp,
    TraceRecord, FINGERPRINT_PAGE_BYTES, MAX_REQUEST_BYTES, SECTOR_BYTES,
};
pub use stats::{SizeBucket, StatsCollector, TraceStats, WriteSkew};
pub use synthetic::{FioDedupeOptions, FioDedupeWriter};
pub use vscsi::{VscsiReader, VscsiVersion};
