//! Writing traces: the [`TraceWriter`] trait, a DiskSim ASCII writer, and
//! [`convert`] from any reader to any writer.

use std::io::{BufWriter, Write};
use std::path::Path;

use crate::error::TraceError;
use crate::native::NativeWriter;
use crate::open::open;
use crate::output_file::{check_not_input, OutputFile};
use crate::reader::{ReaderOptions, TimeUnit, TraceReader};
use crate::record::{TraceOp, TraceRecord, SECTOR_BYTES};

/// A sink of records.
pub trait TraceWriter {
    /// Writes one record. `Ok(false)` when the format cannot represent it
    /// and it was left out (e.g. a trim in DiskSim ASCII).
    fn write_record(&mut self, rec: &TraceRecord) -> std::io::Result<bool>;
    /// Writes any trailer and flushes. Must be called once at the end.
    fn finish(&mut self) -> std::io::Result<()>;
}

impl<W: Write> TraceWriter for NativeWriter<W> {
    fn write_record(&mut self, rec: &TraceRecord) -> std::io::Result<bool> {
        self.write(rec)?;
        Ok(true)
    }

    fn finish(&mut self) -> std::io::Result<()> {
        self.finish_in_place()
    }
}

/// Writes DiskSim/MQSim ASCII: `time device lba_sector size_sectors type`
/// (type 1 = read, 0 = write).
///
/// Lossy: time is written in `unit` (exact decimals), unaligned byte extents
/// are widened to the 512-byte sectors they touch, records without a device
/// get device 0, and trims and flushes (which the format cannot express) are
/// left out.
pub struct DisksimWriter<W: Write> {
    out: W,
    unit: TimeUnit,
}

impl<W: Write> DisksimWriter<W> {
    /// A writer with times in `unit` (read it back with the same unit).
    pub fn new(out: W, unit: TimeUnit) -> Self {
        DisksimWriter { out, unit }
    }

    /// The inner writer.
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> TraceWriter for DisksimWriter<W> {
    fn write_record(&mut self, rec: &TraceRecord) -> std::io::Result<bool> {
        let kind = match rec.op {
            TraceOp::Read => 1,
            TraceOp::Write => 0,
            TraceOp::Trim | TraceOp::Flush | TraceOp::Remap | TraceOp::Clone => return Ok(false),
        };
        let per = self.unit.ns_per_unit();
        let whole = rec.time_ns / per;
        let frac = rec.time_ns % per;
        let first = rec.offset_bytes / SECTOR_BYTES;
        let end = (u128::from(rec.offset_bytes) + u128::from(rec.length_bytes))
            .div_ceil(u128::from(SECTOR_BYTES)) as u64;
        let device = rec.device.unwrap_or(0);
        let sectors = end - first;
        match self.unit {
            TimeUnit::Nanos => writeln!(self.out, "{whole} {device} {first} {sectors} {kind}"),
            _ => {
                let digits = per.ilog10() as usize;
                writeln!(
                    self.out,
                    "{whole}.{frac:0digits$} {device} {first} {sectors} {kind}"
                )
            }
        }?;
        Ok(true)
    }

    fn finish(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Writes the Alibaba block-trace CSV, `device_id,opcode,offset,length,timestamp`
/// (`W` or `R`, bytes, microseconds): the input of SepBIT's simulator
/// (`trace_replay`), which reads Alibaba's format.
///
/// Lossy: times are cut to whole microseconds, records without a device
/// get device 0, and trims, flushes, remaps and clones (which the format
/// cannot express) are left out.
pub struct AlibabaWriter<W: Write> {
    out: W,
}

impl<W: Write> AlibabaWriter<W> {
    /// A writer over `out` (buffer it).
    pub fn new(out: W) -> Self {
        AlibabaWriter { out }
    }

    /// The inner writer.
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> TraceWriter for AlibabaWriter<W> {
    fn write_record(&mut self, rec: &TraceRecord) -> std::io::Result<bool> {
        let op = match rec.op {
            TraceOp::Read => 'R',
            TraceOp::Write => 'W',
            TraceOp::Trim | TraceOp::Flush | TraceOp::Remap | TraceOp::Clone => return Ok(false),
        };
        writeln!(
            self.out,
            "{},{op},{},{},{}",
            rec.device.unwrap_or(0),
            rec.offset_bytes,
            rec.length_bytes,
            rec.time_ns / 1_000
        )?;
        Ok(true)
    }

    fn finish(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// What [`convert`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConvertSummary {
    /// Records read.
    pub records_read: u64,
    /// Records written.
    pub records_written: u64,
    /// Records the output format cannot represent, left out.
    pub records_left_out: u64,
    /// Bad input lines skipped (with `skip_bad_lines`).
    pub skipped_bad_lines: u64,
}

/// Copies every record of `reader` to `writer`, then finishes the writer.
/// `output_name` names the output in error messages.
pub fn convert(
    reader: &mut dyn TraceReader,
    writer: &mut dyn TraceWriter,
    output_name: &str,
) -> Result<ConvertSummary, TraceError> {
    let io = |source| TraceError::Io {
        file: output_name.to_string(),
        source,
    };
    let mut summary = ConvertSummary::default();
    let mut rec = TraceRecord::default();
    while reader.next_record(&mut rec)? {
        summary.records_read += 1;
        if writer.write_record(&rec).map_err(io)? {
            summary.records_written += 1;
        } else {
            summary.records_left_out += 1;
        }
    }
    writer.finish().map_err(io)?;
    summary.skipped_bad_lines = reader.skipped_bad_lines();
    Ok(summary)
}

/// Output formats of [`convert_file`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// The native binary format.
    Native,
    /// DiskSim ASCII with times in the given unit.
    Disksim(TimeUnit),
    /// Alibaba's CSV (SepBIT's simulator reads it).
    Alibaba,
}

/// Converts the trace at `input` into `output`. The output is written
/// beside its destination and renamed into place when complete, so a
/// failure leaves any earlier file as it was; an output that is the input
/// (through any path) is refused before anything is opened for writing.
pub fn convert_file(
    input: &Path,
    ropts: &ReaderOptions,
    output: &Path,
    format: OutputFormat,
) -> Result<ConvertSummary, TraceError> {
    let out_name = output.display().to_string();
    let io = |source| TraceError::Io {
        file: out_name.clone(),
        source,
    };
    check_not_input(output, &[input]).map_err(io)?;
    let mut reader = open(input, ropts)?;
    let file = OutputFile::create(output, &[input]).map_err(io)?;
    let out = BufWriter::with_capacity(256 * 1024, file);
    let (summary, out) = match format {
        OutputFormat::Native => {
            let mut w = NativeWriter::new(out).map_err(io)?;
            let summary = convert(reader.as_mut(), &mut w, &out_name)?;
            (summary, w.finish().map_err(io)?)
        }
        OutputFormat::Disksim(unit) => {
            let mut w = DisksimWriter::new(out, unit);
            let summary = convert(reader.as_mut(), &mut w, &out_name)?;
            (summary, w.into_inner())
        }
        OutputFormat::Alibaba => {
            let mut w = AlibabaWriter::new(out);
            let summary = convert(reader.as_mut(), &mut w, &out_name)?;
            (summary, w.into_inner())
        }
    };
    out.into_inner()
        .map_err(|e| io(e.into_error()))?
        .commit()
        .map_err(io)?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disksim_lines() {
        let mut w = DisksimWriter::new(Vec::new(), TimeUnit::Millis);
        let rec = TraceRecord {
            time_ns: 1_500_001,
            op: TraceOp::Read,
            offset_bytes: 1000,
            length_bytes: 100,
            device: Some(3),
            ..TraceRecord::default()
        };
        assert!(w.write_record(&rec).unwrap());
        let trim = TraceRecord {
            op: TraceOp::Trim,
            ..rec.clone()
        };
        assert!(!w.write_record(&trim).unwrap());
        w.finish().unwrap();
        // Bytes 1000..1100 touch sector 1 and 2.
        assert_eq!(
            String::from_utf8(w.into_inner()).unwrap(),
            "1.500001 3 1 2 1\n"
        );
    }

    /// Alibaba lines read back as the records written (whole microseconds);
    /// a trim is left out.
    #[test]
    fn alibaba_lines_read_back() {
        let mut w = AlibabaWriter::new(Vec::new());
        let mut rec = TraceRecord {
            time_ns: 7_000_999,
            op: TraceOp::Write,
            offset_bytes: 8192,
            length_bytes: 4096,
            ..TraceRecord::default()
        };
        assert!(w.write_record(&rec).unwrap());
        rec.op = TraceOp::Trim;
        assert!(!w.write_record(&rec).unwrap());
        rec.op = TraceOp::Read;
        rec.device = Some(5);
        assert!(w.write_record(&rec).unwrap());
        let text = String::from_utf8(w.into_inner()).unwrap();
        assert_eq!(text, "0,W,8192,4096,7000\n5,R,8192,4096,7000\n");
        let opts = ReaderOptions {
            format: Some(crate::reader::Format::Alibaba),
            ..ReaderOptions::default()
        };
        let mut r =
            crate::open::open_stream(Box::new(std::io::Cursor::new(text)), "t.csv", &opts).unwrap();
        let mut back = TraceRecord::default();
        assert!(r.next_record(&mut back).unwrap());
        assert_eq!(
            (back.op, back.offset_bytes, back.length_bytes, back.time_ns),
            (TraceOp::Write, 8192, 4096, 7_000_000)
        );
    }
}
