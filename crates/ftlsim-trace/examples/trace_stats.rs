//! Prints the statistics of a trace file, as a quick look and an example of
//! the API the CLI uses.
//!
//! ```text
//! cargo run --release -p ftlsim-trace --example trace_stats -- FILE [FORMAT] [TIME_UNIT]
//! ```

use ftlsim_trace::{open, ReaderOptions, TraceStats};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!(
            "usage: trace_stats FILE [FORMAT] [TIME_UNIT]\nformats: {}",
            ftlsim_trace::Format::NAMES.join(", ")
        );
        std::process::exit(2);
    };
    let mut run = || -> Result<(), ftlsim_trace::TraceError> {
        let opts = ReaderOptions {
            format: args.next().map(|f| f.parse()).transpose()?,
            time_unit: args.next().map(|u| u.parse()).transpose()?,
            skip_bad_lines: true,
            ..ReaderOptions::default()
        };
        let mut reader = open(path.as_ref(), &opts)?;
        println!("format: {}", reader.format());
        let stats = TraceStats::from_reader(reader.as_mut(), 4096)?;
        print!("{}", stats.render_text());
        if let Some(e) = reader.first_skipped_error() {
            println!("first skipped line: {e}");
        }
        Ok(())
    };
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
