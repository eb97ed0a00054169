//! Progress on stderr: a bar on a terminal; otherwise (a log, CI, a pipe)
//! a line every few seconds with done/total and an estimate of the time
//! left, so that a long run is never silent.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// Seconds between progress lines when stderr is not a terminal.
const LINE_EVERY: Duration = Duration::from_secs(5);

pub struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
    last_line: Instant,
}

impl Progress {
    pub fn new() -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(1);
            bar.set_style(
                ProgressStyle::with_template("{msg:>12} [{bar:40}] {percent:>3}% eta {eta}")
                    .expect("static template")
                    .progress_chars("=> "),
            );
            bar
        });
        let now = Instant::now();
        Self {
            bar,
            started: now,
            last_line: now,
        }
    }

    /// `done` of `total` units, in the step called `label`.
    pub fn update(&mut self, label: &str, done: u64, total: u64) {
        let done = done.min(total);
        if let Some(bar) = &self.bar {
            bar.set_length(total.max(1));
            bar.set_position(done);
            if bar.message() != label {
                bar.set_message(label.to_string());
            }
            return;
        }
        let now = Instant::now();
        if now.duration_since(self.last_line) < LINE_EVERY {
            return;
        }
        self.last_line = now;
        let elapsed = now.duration_since(self.started).as_secs_f64();
        let share = done as f64 / total.max(1) as f64;
        let left = if share > 0.0 {
            format!("{:.0} s left", elapsed / share - elapsed)
        } else {
            "time left unknown".to_string()
        };
        eprintln!(
            "ftlsim: {label}: {done}/{total} ({:.1} %), {elapsed:.0} s elapsed, about {left}",
            100.0 * share
        );
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
