//! The request loop: one phase's requests from its feed to the device,
//! untimed, timed or pipelined, with the samples and progress between
//! them. Static dispatch throughout: one compact copy per target, feed and
//! clock.

use super::clock::{self, Clock, Inline, PlainClock, Untimed};
use super::feed::{self, Feed};
use super::recorder::Recorder;
use super::target::Target;
use super::{Budget, Driver, Progress, Workload, PROGRESS_EVERY_REQUESTS};
use crate::error::SimError;
use crate::ftl::{PlainWrite, Ssd};
use crate::metrics::Phase;
use crate::request::Op;
use crate::timing::Timer;

impl Driver {
    /// Runs one phase: picks the feed and whether requests are timed, then
    /// the loop specialized for them.
    pub(super) fn drive<D: Target>(
        &mut self,
        dev: &mut D,
        phase: Phase,
        workload: Workload,
        budget: Budget,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(), SimError> {
        let timer = self.timer.as_mut().filter(|_| budget.timed);
        let recorder = &mut self.recorder;
        let (generator, req) = (&mut self.generator, &mut self.req);
        let ended = match workload {
            Workload::Fill => {
                let chunks = timer.is_none() && !generator.has_content();
                let plain = dev.plain_writes().filter(|ssd| ssd.writes_plain::<false>());
                match plain.filter(|_| chunks) {
                    Some(ssd) => {
                        let mut fill = feed::FillLpns { next_lpn: 0 };
                        let write = |ssd: &mut Ssd, pages, writes: &mut Vec<PlainWrite>| {
                            ssd.write_plain_pages::<_, false>(0, pages, &mut fill, writes)
                        };
                        let clock = &mut Untimed;
                        drive_plain_writes(ssd, write, clock, recorder, phase, budget, progress)?
                    }
                    None => {
                        let feed = &mut feed::Fill {
                            generator,
                            req,
                            next_lpn: 0,
                        };
                        run_loop(dev, feed, recorder, timer, phase, budget, progress)?
                    }
                }
            }
            Workload::Writes => {
                let synthetic = &mut self.synthetic;
                // A chunk's writes are timed after the device carried them
                // out: not with a timer that runs GC in the device's idle time.
                let chunks =
                    generator.single_page_writes() && timer.as_ref().is_none_or(|t| t.detachable());
                let plain = dev.plain_writes().filter(|ssd| match timer {
                    None => ssd.writes_plain::<false>(),
                    Some(_) => ssd.writes_plain::<true>(),
                });
                match plain.filter(|_| chunks) {
                    Some(ssd) => {
                        let source = &mut feed::SyntheticLpns {
                            generator,
                            synthetic,
                        };
                        run_plain_writes(ssd, source, recorder, timer, phase, budget, progress)?
                    }
                    None => {
                        let feed = &mut feed::Writes {
                            generator,
                            synthetic,
                            req,
                        };
                        run_loop(dev, feed, recorder, timer, phase, budget, progress)?
                    }
                }
            }
            Workload::Mix => {
                let feed = &mut feed::Mix { generator, req };
                run_loop(dev, feed, recorder, timer, phase, budget, progress)?
            }
            Workload::External => {
                let feed = &mut feed::Replay {
                    external: self
                        .external
                        .as_mut()
                        .expect("an external workload has a source"),
                    generator,
                };
                run_loop(dev, feed, recorder, timer, phase, budget, progress)?
            }
            Workload::Kv { load } => {
                // The precondition (the load) comes as pages, the measured
                // window as requests: either way, operations. The feed ends
                // after them; that is not a source running out.
                let count = match phase {
                    Phase::Warmup => 0,
                    _ => budget.max_pages.min(budget.max_requests),
                };
                let lsm = self
                    .lsm
                    .as_mut()
                    .expect("a key-value workload has an engine");
                let budget = Budget {
                    max_pages: u64::MAX,
                    max_requests: u64::MAX,
                    ..budget
                };
                run_loop(
                    dev,
                    &mut lsm.feed(load, count),
                    recorder,
                    timer,
                    phase,
                    budget,
                    progress,
                )?;
                false
            }
        };
        self.source_exhausted |= ended;
        Ok(())
    }
}

/// The loop with the timing model off, on, or on a thread of its own.
fn run_loop<D: Target, F: Feed>(
    dev: &mut D,
    feed: &mut F,
    recorder: &mut Recorder,
    timer: Option<&mut Timer>,
    phase: Phase,
    budget: Budget,
    progress: &mut dyn FnMut(Progress),
) -> Result<bool, SimError> {
    match timer {
        None => drive_requests(dev, feed, recorder, &mut Untimed, phase, budget, progress),
        Some(t) if budget.pipeline && t.detachable() && !F::CLOSED_LOOP => {
            clock::pipelined(dev, t, |dev, pipe| {
                drive_requests(dev, feed, recorder, pipe, phase, budget, progress)
            })
        }
        Some(t) => drive_requests(dev, feed, recorder, &mut Inline(t), phase, budget, progress),
    }
}

/// `run_loop` for the generator's single-page writes to a plain SSD, a
/// block at a time: untimed, or timed after each call of the device on the
/// loop's thread or a thread of its own (the op log then on).
fn run_plain_writes(
    ssd: &mut Ssd,
    source: &mut feed::SyntheticLpns,
    recorder: &mut Recorder,
    timer: Option<&mut Timer>,
    phase: Phase,
    budget: Budget,
    progress: &mut dyn FnMut(Progress),
) -> Result<bool, SimError> {
    let logged = |ssd: &mut Ssd, pages, writes: &mut Vec<PlainWrite>| {
        source.write_to::<true>(ssd, pages, writes)
    };
    match timer {
        None => {
            let write = |ssd: &mut Ssd, pages, writes: &mut Vec<PlainWrite>| {
                source.write_to::<false>(ssd, pages, writes)
            };
            drive_plain_writes(ssd, write, &mut Untimed, recorder, phase, budget, progress)
        }
        Some(t) if budget.pipeline => clock::pipelined(ssd, t, |ssd, pipe| {
            drive_plain_writes(ssd, logged, pipe, recorder, phase, budget, progress)
        }),
        Some(t) => {
            let clock = &mut Inline(t);
            drive_plain_writes(ssd, logged, clock, recorder, phase, budget, progress)
        }
    }
}

/// The one request loop: until `budget.max_pages` host pages were written,
/// `budget.max_requests` requests ran, or the feed ends (returns `true`
/// then). Static dispatch throughout: one compact copy per target, feed and
/// clock, out of line.
#[inline(never)]
fn drive_requests<D: Target, F: Feed, C: Clock>(
    dev: &mut D,
    feed: &mut F,
    recorder: &mut Recorder,
    clock: &mut C,
    phase: Phase,
    budget: Budget,
    progress: &mut dyn FnMut(Progress),
) -> Result<bool, SimError> {
    let (mut written, mut requests) = (0u64, 0u64);
    let counts_pages = budget.max_pages != u64::MAX;
    while written < budget.max_pages && requests < budget.max_requests {
        let Some(req) = feed.next(dev, clock, budget.max_pages - written)? else {
            return Ok(true);
        };
        let ticket = clock.begin(dev, req)?;
        let result = dev.submit(req);
        let timed = clock.finish(dev, ticket, result.is_err())?;
        let done = result?;
        if req.op == Op::Write {
            written += u64::from(req.pages);
        }
        feed.completed(&done, timed, clock)?;
        requests += 1;
        let units = || {
            feed.units_done()
                .unwrap_or(if counts_pages { written } else { requests })
        };
        let between = feed.between_units();
        checkpoint(
            dev, recorder, phase, budget, progress, between, requests, units,
        )?;
    }
    Ok(false)
}

/// What the loop does after each request: a sample when one is due (and
/// the feed is between its units), progress at a sample and every
/// `PROGRESS_EVERY_REQUESTS` requests, and the cancel check with it.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn checkpoint<D: Target>(
    dev: &mut D,
    recorder: &mut Recorder,
    phase: Phase,
    budget: Budget,
    progress: &mut dyn FnMut(Progress),
    between_units: bool,
    requests: u64,
    units: impl FnOnce() -> u64,
) -> Result<(), SimError> {
    let sampled = between_units && recorder.due(dev);
    if sampled {
        recorder.sample(dev, phase)?;
    }
    if sampled || requests.is_multiple_of(PROGRESS_EVERY_REQUESTS) {
        progress(Progress {
            phase,
            done: budget.done_before + units(),
            total: budget.total,
            counters: *dev.ssd().counters(),
        });
        if recorder.cancelled() {
            return Err(SimError::Interrupted);
        }
    }
    Ok(())
}

/// `drive_requests` for single-page writes to a plain SSD (the
/// generator's, or the sequential fill): the writes up to the loop's next
/// event (a sample due, a progress point, the budget's end, a full batch
/// of the clock's) go to the device in one call of `write`, which writes
/// them a block at a time (`Ssd::write_plain_pages`) and, timed, notes
/// what the timer needs of each (`PlainWrite`); the clock then times them. The
/// same writes, samples, progress and timing as `drive_requests` gives:
/// one page per request, so the pages and requests counted are the same
/// number.
#[inline(never)]
fn drive_plain_writes<C: PlainClock>(
    ssd: &mut Ssd,
    mut write: impl FnMut(&mut Ssd, u64, &mut Vec<PlainWrite>) -> Result<(), SimError>,
    clock: &mut C,
    recorder: &mut Recorder,
    phase: Phase,
    budget: Budget,
    progress: &mut dyn FnMut(Progress),
) -> Result<bool, SimError> {
    let limit = budget.max_pages.min(budget.max_requests);
    let mut requests = 0u64;
    let mut writes = Vec::new();
    while requests < limit {
        let pages = (limit - requests)
            .min(recorder.pages_until_due(ssd).max(1))
            .min(PROGRESS_EVERY_REQUESTS - requests % PROGRESS_EVERY_REQUESTS)
            .min(clock.room());
        let written = write(ssd, pages, &mut writes);
        clock.time_writes(ssd, &writes, written.is_err())?;
        writes.clear();
        written?;
        requests += pages;
        checkpoint(
            ssd,
            recorder,
            phase,
            budget,
            progress,
            true,
            requests,
            || requests,
        )?;
    }
    Ok(false)
}
