//! What the timing model measures: latency distributions per request kind,
//! throughput, resource busy time and GC's share of it, latency over time.

use serde::Serialize;

use crate::request::Op;

use crate::metrics::{DistributionSummary, LogHistogram};

use super::engine::Engine;
use super::queues::QUEUE_LENGTH_CAP;

/// One sample of the latency-over-time series: the requests issued since the previous sample.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LatencyRow {
    /// Requests issued since the start of the measured window.
    pub requests: u64,
    /// Simulated time of the last issue in the window.
    pub time_ns: u64,
    /// Requests the device took in per simulated second over the window
    /// (by issue time): the served rate.
    pub iops: f64,
    /// Latencies of the window's requests; empty when it had none of that kind.
    pub read_latency_us_mean: Option<f64>,
    pub read_latency_us_p99: Option<f64>,
    pub write_latency_us_mean: Option<f64>,
    pub write_latency_us_p99: Option<f64>,
    /// GC's share of the LUN time scheduled in the window.
    pub gc_time_share: f64,
    /// Requests in this window: `series_window` for all but the last row,
    /// which covers what was left when the run ended (often fewer), so that
    /// readers can tell a partial window from a full one. Last so that the
    /// columns of latency.csv keep their order.
    pub window_requests: u64,
    /// Requests that arrived per simulated second over the window (by
    /// arrival time): the offered rate. Equal to `iops` in closed loop; in
    /// open loop, above it while the device falls behind.
    pub offered_iops: f64,
}

/// Busy fraction of one LUN over the measured window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LunRow {
    pub lun: u32,
    pub channel: u32,
    /// Busy time / simulated time.
    pub busy_fraction: f64,
    /// Time on GC reads, programs and erases / simulated time.
    pub gc_busy_fraction: f64,
    /// Operations an arriving operation found at the LUN (waiting or in
    /// service): median, 99th percentile and most. Counted exactly up to
    /// 63; a queue of 64 or more reads as 64.
    pub queue_length_p50: u32,
    pub queue_length_p99: u32,
    pub queue_length_max: u32,
}

/// One channel over the measured window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ChannelRow {
    pub channel: u32,
    pub transfers: u64,
    /// Transfer time / simulated time.
    pub busy_fraction: f64,
    /// Time transfers spent ready but waiting for the channel: total /
    /// simulated time (can exceed 1: several wait at once), mean and most
    /// per transfer.
    pub wait_fraction: f64,
    pub wait_us_mean: f64,
    pub wait_us_max: f64,
    /// Time a transfer was pushed back, per transfer, by transfers placed
    /// after its request completed but ready before it: latency the reported
    /// completions miss (docs/timing.md, "Channel scheduling").
    pub late_shift_us_mean: f64,
}

/// Percentile `q` of a histogram of counts by value.
fn count_quantile(counts: &[u64], q: f64) -> u32 {
    let total: u64 = counts.iter().sum();
    if total == 0 {
        return 0;
    }
    let want = ((q * total as f64).ceil() as u64).max(1);
    let mut seen = 0;
    for (n, &c) in counts.iter().enumerate() {
        seen += c;
        if seen >= want {
            return n as u32;
        }
    }
    (counts.len() - 1) as u32
}

fn count_max(counts: &[u64]) -> u32 {
    counts.iter().rposition(|&c| c > 0).unwrap_or(0) as u32
}

/// The timing results of a measured window.
#[derive(Debug, Clone, Serialize)]
pub struct TimingSummary {
    pub requests: u64,
    pub read_requests: u64,
    pub write_requests: u64,
    pub trim_requests: u64,
    pub flush_requests: u64,
    /// From the start of the window to the last completion.
    pub sim_time_ns: u64,
    /// Requests of every kind per simulated second.
    pub iops: f64,
    /// Host pages read and written, in bytes per simulated second.
    pub bandwidth_bytes_per_sec: f64,
    /// Latency in ns: completion − issue (closed loop) or − arrival (open loop).
    pub read_latency_ns: DistributionSummary,
    pub write_latency_ns: DistributionSummary,
    /// LUN time spent on GC (copies' reads and programs, erases, wear
    /// leveling) / all LUN busy time.
    pub gc_time_share: f64,
    pub lun_busy_mean: f64,
    pub lun_busy_min: f64,
    pub lun_busy_max: f64,
    pub channel_busy_mean: f64,
    pub channel_busy_max: f64,
    /// Wait of a transfer for its channel after its data was ready: mean
    /// over every transfer, and the longest.
    pub channel_wait_us_mean: f64,
    pub channel_wait_us_max: f64,
    /// Time a transfer was pushed back after its request's completion was
    /// reported, mean per transfer (what reported latencies miss).
    pub channel_late_shift_us_mean: f64,
    /// Operations an arriving LUN operation found queued at its LUN, all
    /// LUNs together: median, 99th percentile, most.
    pub lun_queue_length_p50: u32,
    pub lun_queue_length_p99: u32,
    pub lun_queue_length_max: u32,
    /// Program/erase suspend: programs and erases suspended by host reads,
    /// and the mean time each suspension added to the suspended operation
    /// (after its request's completion was computed).
    pub suspensions: u64,
    pub suspend_delay_us_mean: f64,
    /// Write buffer (`timing.write_buffer_pages`): host read pages served
    /// from it, writes that found it full, and their mean wait for room.
    pub write_buffer_pages: u32,
    pub write_buffer_read_hit_pages: u64,
    pub write_buffer_full_waits: u64,
    pub write_buffer_wait_us_mean: f64,
    #[serde(skip)]
    pub luns: Vec<LunRow>,
    #[serde(skip)]
    pub channels: Vec<ChannelRow>,
    #[serde(skip)]
    pub series: Vec<LatencyRow>,
}

/// A latency distribution in microseconds, for reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatencyUs {
    pub mean: f64,
    pub p50: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

impl LatencyUs {
    /// `None` when no request of the kind completed.
    pub fn of(ns: &DistributionSummary) -> Option<Self> {
        (ns.count > 0).then(|| Self {
            mean: ns.mean / 1e3,
            p50: ns.p50 as f64 / 1e3,
            p99: ns.p99 as f64 / 1e3,
            p999: ns.p999 as f64 / 1e3,
            max: ns.max as f64 / 1e3,
        })
    }
}

impl TimingSummary {
    pub fn read_us(&self) -> Option<LatencyUs> {
        LatencyUs::of(&self.read_latency_ns)
    }

    pub fn write_us(&self) -> Option<LatencyUs> {
        LatencyUs::of(&self.write_latency_ns)
    }
}

#[derive(Debug, Clone)]
pub struct TimingStats {
    /// Whole-window histograms hold every closed series window; the open one
    /// is merged in when it closes (one record per request on the hot path).
    read: LogHistogram,
    write: LogHistogram,
    window_read: LogHistogram,
    window_write: LogHistogram,
    /// Requests per operation (`Op::code` order).
    requests: [u64; Op::ALL.len()],
    read_pages: u64,
    write_pages: u64,
    end_at: u64,
    series_window: u64,
    window_requests: u64,
    window_started_at: u64,
    /// Latest arrival so far, and the latest when the window opened.
    last_arrival_at: u64,
    window_arrivals_from: u64,
    window_lun_busy: (u64, u64),
    series: Vec<LatencyRow>,
}

impl TimingStats {
    pub fn new(series_window: u64) -> Self {
        Self {
            read: LogHistogram::default(),
            write: LogHistogram::default(),
            window_read: LogHistogram::default(),
            window_write: LogHistogram::default(),
            requests: [0; Op::ALL.len()],
            read_pages: 0,
            write_pages: 0,
            end_at: 0,
            series_window: series_window.max(1),
            window_requests: 0,
            window_started_at: 0,
            last_arrival_at: 0,
            window_arrivals_from: 0,
            window_lun_busy: (0, 0),
            series: Vec::new(),
        }
    }

    /// Records a completed request. Returns true when a series window is full
    /// (the caller then calls `close_window`).
    #[inline(always)]
    pub fn record(&mut self, op: Op, pages: u32, arrival_at: u64, done_at: u64) -> bool {
        let latency_ns = done_at - arrival_at;
        self.last_arrival_at = self.last_arrival_at.max(arrival_at);
        match op {
            Op::Read => {
                self.window_read.record(latency_ns);
                self.read_pages += u64::from(pages);
            }
            Op::Write => {
                self.window_write.record(latency_ns);
                self.write_pages += u64::from(pages);
            }
            // Trims, flushes, remaps and clones move no data: counted, not timed apart.
            Op::Trim | Op::Flush | Op::Remap | Op::Clone => {}
        }
        self.requests[usize::from(op.code())] += 1;
        self.end_at = self.end_at.max(done_at);
        self.window_requests += 1;
        self.window_requests >= self.series_window
    }

    /// Ends the current series window at simulated time `now` (the last issue).
    /// The row's latencies come from this window's requests alone (the
    /// window histograms are reset here), so a slow spell does not linger in
    /// later rows.
    pub fn close_window(&mut self, now: u64, engine: &Engine) {
        if self.window_requests == 0 {
            return;
        }
        let us = |ns: f64| ns / 1000.0;
        let mean = |h: &LogHistogram| (h.count() > 0).then(|| us(h.mean()));
        let p99 = |h: &LogHistogram| (h.count() > 0).then(|| us(h.quantile(0.99) as f64));
        let (busy, gc) = engine.lun_busy_totals();
        let (window_busy, window_gc) = (busy - self.window_lun_busy.0, gc - self.window_lun_busy.1);
        let elapsed = now.saturating_sub(self.window_started_at);
        let arrivals_span = self.last_arrival_at - self.window_arrivals_from;
        let per_sec = |span_ns: u64| {
            if span_ns == 0 {
                0.0
            } else {
                self.window_requests as f64 * 1e9 / span_ns as f64
            }
        };
        self.series.push(LatencyRow {
            requests: self.requests.iter().sum(),
            time_ns: now,
            iops: per_sec(elapsed),
            offered_iops: per_sec(arrivals_span),
            read_latency_us_mean: mean(&self.window_read),
            read_latency_us_p99: p99(&self.window_read),
            write_latency_us_mean: mean(&self.window_write),
            write_latency_us_p99: p99(&self.window_write),
            gc_time_share: if window_busy == 0 {
                0.0
            } else {
                window_gc as f64 / window_busy as f64
            },
            window_requests: self.window_requests,
        });
        self.read.merge(&self.window_read);
        self.write.merge(&self.window_write);
        self.window_read = LogHistogram::default();
        self.window_write = LogHistogram::default();
        self.window_requests = 0;
        self.window_started_at = now;
        self.window_arrivals_from = self.last_arrival_at;
        self.window_lun_busy = (busy, gc);
    }

    /// The summary of everything recorded (closes the open series window).
    pub fn summary(&mut self, now: u64, engine: &Engine, page_bytes: u32) -> TimingSummary {
        self.close_window(now, engine);
        let sim_time_ns = self.end_at;
        let per_sec = |x: f64| {
            if sim_time_ns == 0 {
                0.0
            } else {
                x * 1e9 / sim_time_ns as f64
            }
        };
        let fraction = |busy: u64| {
            if sim_time_ns == 0 {
                0.0
            } else {
                busy as f64 / sim_time_ns as f64
            }
        };
        let (busy, gc) = engine.lun_busy_totals();
        let mut all_queue_counts = vec![0u64; QUEUE_LENGTH_CAP + 1];
        let luns: Vec<LunRow> = (0..engine.luns())
            .map(|lun| {
                let (busy, gc) = engine.lun_busy_ns(lun);
                let counts = engine.lun_queue_counts(lun);
                for (all, c) in all_queue_counts.iter_mut().zip(counts) {
                    *all += c;
                }
                LunRow {
                    lun,
                    channel: engine.channel_of_lun(lun),
                    busy_fraction: fraction(busy),
                    gc_busy_fraction: fraction(gc),
                    queue_length_p50: count_quantile(counts, 0.5),
                    queue_length_p99: count_quantile(counts, 0.99),
                    queue_length_max: count_max(counts),
                }
            })
            .collect();
        let lun_busy = luns.iter().map(|l| l.busy_fraction);
        let channels: Vec<ChannelRow> = (0..engine.channels())
            .map(|channel| {
                let (transfers, wait_ns, max_wait_ns, late_ns) = engine.channel_waits(channel);
                let per_transfer_us = |ns: u64| {
                    if transfers == 0 {
                        0.0
                    } else {
                        ns as f64 / transfers as f64 / 1e3
                    }
                };
                ChannelRow {
                    channel,
                    transfers,
                    busy_fraction: fraction(engine.channel_busy_ns(channel)),
                    wait_fraction: fraction(wait_ns),
                    wait_us_mean: per_transfer_us(wait_ns),
                    wait_us_max: max_wait_ns as f64 / 1e3,
                    late_shift_us_mean: per_transfer_us(late_ns),
                }
            })
            .collect();
        let channel_busy: u64 = (0..engine.channels())
            .map(|c| engine.channel_busy_ns(c))
            .sum();
        let (transfers, wait_us_total, late_us_total) =
            channels.iter().fold((0, 0.0, 0.0), |(n, w, l), c| {
                let t = c.transfers as f64;
                (
                    n + c.transfers,
                    w + c.wait_us_mean * t,
                    l + c.late_shift_us_mean * t,
                )
            });
        let per_transfer = |us: f64| {
            if transfers == 0 {
                0.0
            } else {
                us / transfers as f64
            }
        };
        let requests: u64 = self.requests.iter().sum();
        TimingSummary {
            requests,
            read_requests: self.requests[usize::from(Op::Read.code())],
            write_requests: self.requests[usize::from(Op::Write.code())],
            trim_requests: self.requests[usize::from(Op::Trim.code())]
                + self.requests[usize::from(Op::Remap.code())]
                + self.requests[usize::from(Op::Clone.code())],
            flush_requests: self.requests[usize::from(Op::Flush.code())],
            sim_time_ns,
            iops: per_sec(requests as f64),
            bandwidth_bytes_per_sec: per_sec(
                ((self.read_pages + self.write_pages) * u64::from(page_bytes)) as f64,
            ),
            read_latency_ns: self.read.summary(),
            write_latency_ns: self.write.summary(),
            gc_time_share: if busy == 0 {
                0.0
            } else {
                gc as f64 / busy as f64
            },
            lun_busy_mean: lun_busy.clone().sum::<f64>() / f64::from(engine.luns()),
            lun_busy_min: lun_busy.clone().fold(f64::INFINITY, f64::min),
            lun_busy_max: lun_busy.fold(0.0, f64::max),
            channel_busy_mean: fraction(channel_busy) / f64::from(engine.channels()),
            channel_busy_max: channels.iter().map(|c| c.busy_fraction).fold(0.0, f64::max),
            channel_wait_us_mean: per_transfer(wait_us_total),
            channel_late_shift_us_mean: per_transfer(late_us_total),
            channel_wait_us_max: channels.iter().map(|c| c.wait_us_max).fold(0.0, f64::max),
            lun_queue_length_p50: count_quantile(&all_queue_counts, 0.5),
            lun_queue_length_p99: count_quantile(&all_queue_counts, 0.99),
            lun_queue_length_max: count_max(&all_queue_counts),
            suspensions: engine.suspensions().0,
            suspend_delay_us_mean: match engine.suspensions() {
                (0, _) => 0.0,
                (n, ns) => ns as f64 / n as f64 / 1e3,
            },
            write_buffer_pages: 0,
            write_buffer_read_hit_pages: 0,
            write_buffer_full_waits: 0,
            write_buffer_wait_us_mean: 0.0,
            luns,
            channels,
            series: self.series.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::{TimingMode, TimingParams};

    fn engine() -> Engine {
        let params = TimingParams {
            channels: 1,
            luns_per_channel: 1,
            read_ns: 40_000,
            program_ns: 200_000,
            erase_ns: 2_000_000,
            transfer_ns: 10_000,
            overhead_ns: 0,
            queue_depth: 1,
            mode: TimingMode::Closed,
            suspend_ns: None,
            planes_per_lun: 1,
        };
        Engine::new(&params, 64)
    }

    /// Records `n` writes of `latency_ns` each, one every microsecond from
    /// `start_ns`, closing windows as `record` asks; returns the last issue time.
    fn record_writes(
        stats: &mut TimingStats,
        engine: &Engine,
        n: u64,
        latency_ns: u64,
        start_ns: u64,
    ) -> u64 {
        let mut now_ns = start_ns;
        for i in 0..n {
            now_ns = start_ns + i * 1000;
            if stats.record(Op::Write, 1, now_ns, now_ns + latency_ns) {
                stats.close_window(now_ns, engine);
            }
        }
        now_ns
    }

    #[test]
    fn each_window_reports_its_own_percentiles() {
        let engine = engine();
        let mut stats = TimingStats::new(100);
        // A slow window (10 ms), then a fast one (100 us).
        let t = record_writes(&mut stats, &engine, 100, 10_000_000, 0);
        let t = record_writes(&mut stats, &engine, 100, 100_000, t + 1000);
        let summary = stats.summary(t, &engine, 4096);
        let rows = &summary.series;
        assert_eq!(rows.len(), 2, "{rows:?}");
        let slow_p99_us = rows[0].write_latency_us_p99.unwrap();
        let fast_p99_us = rows[1].write_latency_us_p99.unwrap();
        // LogHistogram is accurate to a few per cent.
        assert!((slow_p99_us / 10_000.0 - 1.0).abs() < 0.05, "{slow_p99_us}");
        assert!((fast_p99_us / 100.0 - 1.0).abs() < 0.05, "{fast_p99_us}");
        let fast_mean_us = rows[1].write_latency_us_mean.unwrap();
        assert!((fast_mean_us / 100.0 - 1.0).abs() < 0.05, "{fast_mean_us}");
        assert_eq!(rows[1].read_latency_us_p99, None, "no reads in the window");
        // The whole-run distribution still holds both windows.
        assert_eq!(summary.write_latency_ns.count, 200);
        assert!(summary.write_latency_ns.max >= 9_500_000);
    }

    #[test]
    fn a_partial_final_window_says_how_many_requests_it_covers() {
        let engine = engine();
        let mut stats = TimingStats::new(100);
        let t = record_writes(&mut stats, &engine, 250, 100_000, 0);
        let rows = stats.summary(t, &engine, 4096).series;
        let sizes: Vec<u64> = rows.iter().map(|r| r.window_requests).collect();
        assert_eq!(sizes, vec![100, 100, 50]);
        let cumulative: Vec<u64> = rows.iter().map(|r| r.requests).collect();
        assert_eq!(cumulative, vec![100, 200, 250]);
    }

    #[test]
    fn queue_length_percentiles_count_from_the_bottom() {
        // 90 arrivals found an empty queue, 9 found 2, 1 found 7.
        let mut counts = vec![0u64; 8];
        counts[0] = 90;
        counts[2] = 9;
        counts[7] = 1;
        assert_eq!(count_quantile(&counts, 0.5), 0);
        assert_eq!(count_quantile(&counts, 0.9), 0);
        assert_eq!(count_quantile(&counts, 0.95), 2);
        assert_eq!(count_quantile(&counts, 0.99), 2);
        assert_eq!(count_quantile(&counts, 1.0), 7);
        assert_eq!(count_max(&counts), 7);
        assert_eq!(count_quantile(&[0, 0], 0.5), 0);
    }

    #[test]
    fn offered_rate_counts_arrivals_and_served_rate_counts_issues() {
        let engine = engine();
        let mut stats = TimingStats::new(100);
        // Arrivals every 1 us, but the device takes one in every 2 us: it
        // falls behind, and the window says so.
        for i in 1..=100u64 {
            let (arrival, issue) = (i * 1000, i * 2000);
            if stats.record(Op::Read, 1, arrival, issue + 50_000) {
                stats.close_window(issue, &engine);
            }
        }
        let row = &stats.series[0];
        assert!((row.offered_iops - 1e6).abs() < 1.0, "{}", row.offered_iops);
        assert!((row.iops - 5e5).abs() < 1.0, "{}", row.iops);
    }

    #[test]
    fn no_empty_final_window() {
        let engine = engine();
        let mut stats = TimingStats::new(100);
        let t = record_writes(&mut stats, &engine, 200, 100_000, 0);
        let rows = stats.summary(t, &engine, 4096).series;
        assert_eq!(rows.len(), 2);
        assert!(rows.iter().all(|r| r.window_requests == 100));
    }
}
