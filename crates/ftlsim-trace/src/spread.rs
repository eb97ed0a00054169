//! Spreading whole-second timestamps over their second, as SepBIT does for
//! Tencent CBS traces (whose timestamps are whole seconds): the `n`
//! consecutive records that share a second `s` get times
//! `s + i · (1 s / n)`, `i = 0..n`, in file order.
//!
//! SepBIT (its `transform_timestamp_tencentCloud`, run per volume after the
//! split, on writes only since it drops reads) does the same in whole
//! microseconds; our times are in nanoseconds and truncate to the same
//! microseconds. Differences: the group is every record the reader keeps
//! (after the device filter: one volume, reads included), and a group ends
//! where the second changes, as SepBIT's ends where the timestamp changes.
//!
//! Memory: the records of one second (plus one read ahead).

use std::collections::VecDeque;

use crate::error::TraceError;
use crate::reader::{Format, TraceReader};
use crate::record::TraceRecord;

const SECOND_NS: u64 = 1_000_000_000;

/// A reader whose records' times are spread over their second.
pub struct SpreadSeconds {
    inner: Box<dyn TraceReader>,
    /// The current second's records with the inner reader's position of each.
    group: VecDeque<(TraceRecord, u64)>,
    /// The first record of the next second, read ahead.
    ahead: Option<(TraceRecord, u64)>,
    position: u64,
    returned: u64,
    done: bool,
}

impl SpreadSeconds {
    /// Wraps `inner`.
    pub fn new(inner: Box<dyn TraceReader>) -> Self {
        SpreadSeconds {
            inner,
            group: VecDeque::new(),
            ahead: None,
            position: 0,
            returned: 0,
            done: false,
        }
    }

    fn read_one(&mut self) -> Result<Option<(TraceRecord, u64)>, TraceError> {
        if self.done {
            return Ok(None);
        }
        let mut rec = TraceRecord::default();
        if self.inner.next_record(&mut rec)? {
            Ok(Some((rec, self.inner.position())))
        } else {
            self.done = true;
            Ok(None)
        }
    }

    /// Reads the next second's records and spreads their times.
    fn fill(&mut self) -> Result<(), TraceError> {
        let first = match self.ahead.take() {
            Some(r) => r,
            None => match self.read_one()? {
                Some(r) => r,
                None => return Ok(()),
            },
        };
        let second = first.0.time_ns / SECOND_NS;
        self.group.push_back(first);
        while let Some(next) = self.read_one()? {
            if next.0.time_ns / SECOND_NS != second {
                self.ahead = Some(next);
                break;
            }
            self.group.push_back(next);
        }
        let n = self.group.len() as u128;
        for (i, (rec, _)) in self.group.iter_mut().enumerate() {
            // i < n, so the offset stays inside the second.
            let offset = (i as u128 * u128::from(SECOND_NS) / n) as u64;
            rec.time_ns = second * SECOND_NS + offset;
        }
        Ok(())
    }
}

impl TraceReader for SpreadSeconds {
    fn next_record(&mut self, rec: &mut TraceRecord) -> Result<bool, TraceError> {
        if self.group.is_empty() {
            self.fill()?;
        }
        match self.group.pop_front() {
            Some((r, position)) => {
                *rec = r;
                self.position = position;
                self.returned += 1;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn format(&self) -> Format {
        self.inner.format()
    }

    fn name(&self) -> &str {
        self.inner.name()
    }

    fn position(&self) -> u64 {
        self.position
    }

    fn records_read(&self) -> u64 {
        self.returned
    }

    fn skipped_bad_lines(&self) -> u64 {
        self.inner.skipped_bad_lines()
    }

    fn first_skipped_error(&self) -> Option<&TraceError> {
        self.inner.first_skipped_error()
    }
}
