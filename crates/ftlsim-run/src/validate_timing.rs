//! `ftlsim validate`, timing half: the timing model against queueing theory
//! (docs/timing.md, "Validation", derives each model).
//!
//! * Poisson random single-page reads on one LUN per channel: each LUN is an
//!   M/D/1 queue with service tR, and its transfer never waits (the channel
//!   sees that LUN alone, at most one page per tR), so the mean latency is
//!   tR + ρ tR / (2 (1 − ρ)) + transfer.
//! * The same per-LUN load with K LUNs per channel: the LUNs are the same
//!   M/D/1 queues; the channel adds a wait in [0, (K − 1) · transfer] when
//!   K · transfer ≤ tR. The mean latency less the mean channel wait is the
//!   M/D/1 value; the wait itself lies in that range.
//! * Below capacity the backlog does not grow: the mean latency of the last
//!   tenth of the run is within 20 % of the first tenth's.
//! * Closed loop at a deep queue: throughput is min(LUNs / tR, channels /
//!   transfer).

use ftlsim::config::{Amount, Config, WorkloadType};
use ftlsim::timing::{TimingConfig, TimingMode};
use ftlsim::Report;
use serde::Serialize;

use crate::error::Result;

/// Array read time and page transfer time of every case, in µs.
const READ_US: f64 = 40.0;
const TRANSFER_US: f64 = 10.0;

/// One check of one run.
#[derive(Debug, Clone, Serialize)]
pub struct TimingCaseResult {
    pub case: String,
    pub quantity: &'static str,
    pub model: &'static str,
    pub simulated: f64,
    /// The model's value, or the range it allows (`model_low` = `model_high`
    /// for an exact value).
    pub model_low: f64,
    pub model_high: f64,
    /// Mean wait of a transfer for its channel in the run, as reported in
    /// latencies, and the mean time transfers were pushed back after that
    /// (µs; docs/timing.md, "Channel scheduling").
    pub channel_wait_us_mean: f64,
    pub channel_late_shift_us_mean: f64,
    /// Distance from the model's range, relative to its nearer end (0 inside).
    pub relative_error: f64,
    pub tolerance: f64,
    pub pass: bool,
}

fn check(
    case: &str,
    quantity: &'static str,
    model: &'static str,
    simulated: f64,
    (low, high): (f64, f64),
    tolerance: f64,
    report: &Report,
) -> TimingCaseResult {
    let relative_error = if simulated < low {
        (simulated - low) / low
    } else if simulated > high {
        (simulated - high) / high
    } else {
        0.0
    };
    TimingCaseResult {
        case: case.to_string(),
        quantity,
        model,
        simulated,
        model_low: low,
        model_high: high,
        channel_wait_us_mean: report.timing.channel_wait_us_mean.unwrap_or(0.0),
        channel_late_shift_us_mean: report.timing.channel_late_shift_us_mean.unwrap_or(0.0),
        relative_error,
        tolerance,
        pass: relative_error.abs() <= tolerance,
    }
}

/// Random single-page reads of a filled 256 MiB device.
fn reads(channels: u32, luns_per_channel: u32, requests: u64) -> Config {
    let mut c = Config::default();
    c.device.blocks = 1024;
    c.device.pages_per_block = 256;
    c.device.spare_factor = 0.1;
    c.device.pe_cycle_limit = 0;
    c.metrics.survival = false;
    c.workload.kind = WorkloadType::Uniform;
    c.workload.read_fraction = 1.0;
    c.workload.requests = Some(requests);
    c.workload.warmup = Some(Amount::Pages(0));
    c.timing = Some(TimingConfig {
        channels: Some(channels),
        luns_per_channel: Some(luns_per_channel),
        read_latency_us: READ_US,
        transfer_us_per_page: TRANSFER_US,
        ..TimingConfig::default()
    });
    c
}

/// Open loop Poisson reads at utilisation `rho` of every LUN; the latency
/// series has ten windows.
fn poisson_reads(channels: u32, luns_per_channel: u32, rho: f64, requests: u64) -> Config {
    let mut c = reads(channels, luns_per_channel, requests);
    let luns = f64::from(channels * luns_per_channel);
    let t = c.timing.as_mut().expect("set above");
    t.mode = TimingMode::Open;
    t.arrival_rate_iops = Some(rho * luns * 1e6 / READ_US);
    // Never full: the host never holds a request back.
    t.queue_depth = 1 << 20;
    t.series_window = Some(requests / 10);
    c
}

/// Mean sojourn of an M/D/1 queue with service `service_us` at utilisation `rho`.
pub fn md1_sojourn_us(service_us: f64, rho: f64) -> f64 {
    service_us + rho * service_us / (2.0 * (1.0 - rho))
}

/// Mean read latency of the last tenth of the run over the first tenth's.
fn last_over_first_tenth(r: &Report) -> f64 {
    let means: Vec<f64> = r
        .latency_series
        .iter()
        .filter_map(|row| row.read_latency_us_mean)
        .collect();
    match (means.first(), means.last()) {
        (Some(first), Some(last)) if means.len() >= 10 => last / first,
        _ => f64::NAN,
    }
}

fn go(c: &Config) -> Result<Report> {
    Ok(ftlsim::run(c, &ftlsim::RunOptions::default(), &mut |_| {})?)
}

/// Runs every timing case; `progress` hears each case's name before it runs.
pub fn run_timing_validation(
    quick: bool,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<Vec<TimingCaseResult>> {
    let requests: u64 = if quick { 1_000_000 } else { 4_000_000 };
    let rhos = [0.3, 0.6, 0.9];
    let total = 2 * rhos.len() + 2;
    let mut step = 0;
    let mut out = Vec::new();
    for &rho in &rhos {
        let name = format!("Poisson reads 8 x 1, rho {rho}");
        progress(step, total, &name);
        step += 1;
        let r = go(&poisson_reads(8, 1, rho, requests))?;
        let mean = r.timing.read_latency_us_mean.unwrap_or(f64::NAN);
        let md1 = md1_sojourn_us(READ_US, rho) + TRANSFER_US;
        out.push(check(
            &name,
            "read mean us",
            "M/D/1 + transfer",
            mean,
            (md1, md1),
            0.05,
            &r,
        ));
        out.push(check(
            &name,
            "last/first tenth",
            "no backlog growth",
            last_over_first_tenth(&r),
            (1.0, 1.0),
            0.2,
            &r,
        ));
    }
    let k = 4;
    for &rho in &rhos {
        let name = format!("Poisson reads 2 x {k}, rho {rho}");
        progress(step, total, &name);
        step += 1;
        let r = go(&poisson_reads(2, k, rho, requests))?;
        let mean = r.timing.read_latency_us_mean.unwrap_or(f64::NAN);
        let wait = r.timing.channel_wait_us_mean.unwrap_or(f64::NAN);
        let md1 = md1_sojourn_us(READ_US, rho) + TRANSFER_US;
        let most_wait = f64::from(k - 1) * TRANSFER_US;
        out.push(check(
            &name,
            "read mean us",
            "M/D/1 + transfer + [0, (K-1) transfer]",
            mean,
            (md1, md1 + most_wait),
            0.05,
            &r,
        ));
        out.push(check(
            &name,
            "read mean - channel wait",
            "M/D/1 + transfer",
            mean - wait,
            (md1, md1),
            0.05,
            &r,
        ));
        let late = r.timing.channel_late_shift_us_mean.unwrap_or(f64::NAN);
        out.push(check(
            &name,
            "channel wait+late shift",
            "[0, (K-1) transfer]",
            wait + late,
            (0.0, most_wait),
            0.0,
            &r,
        ));
        out.push(check(
            &name,
            "channel wait max us",
            "[0, (K-1) transfer]",
            r.timing.channel_wait_us_max.unwrap_or(f64::NAN),
            (0.0, most_wait),
            0.0,
            &r,
        ));
        out.push(check(
            &name,
            "last/first tenth",
            "no backlog growth",
            last_over_first_tenth(&r),
            (1.0, 1.0),
            0.2,
            &r,
        ));
    }
    // Closed loop, deep queue: LUN-bound (transfer 5 us) and channel-bound
    // (transfer 20 us) on 8 x 4. Random reads load the LUNs unevenly and the
    // run lasts until the busiest is done: about 2 sqrt(n / LUNs) reads of
    // it, 1.1 % at 1 M reads on 32 LUNs.
    for transfer_us in [5.0, 20.0] {
        let name = format!("closed QD 4096 reads 8 x 4, transfer {transfer_us} us");
        progress(step, total, &name);
        step += 1;
        let mut c = reads(8, 4, 1_000_000);
        let t = c.timing.as_mut().expect("set above");
        t.transfer_us_per_page = transfer_us;
        t.queue_depth = 4096;
        let p = t.params(&c.device);
        let bound = p.lun_read_bound_iops().min(p.channel_bound_iops());
        let r = go(&c)?;
        out.push(check(
            &name,
            "IOPS",
            "min(LUNs/tR, channels/transfer)",
            r.timing.iops.unwrap_or(f64::NAN),
            (bound, bound),
            0.02,
            &r,
        ));
    }
    Ok(out)
}

pub fn render(results: &[TimingCaseResult]) -> String {
    let mut s = format!(
        "{:<40} {:<26} {:>10} {:>21} {:>9} {:>6} {:>6} {:>6}  {}\n",
        "timing case", "quantity", "simulated", "model", "error", "tol", "wait", "late", "result"
    );
    for r in results {
        let model = if r.model_low == r.model_high {
            format!("{:.3}", r.model_low)
        } else {
            format!("[{:.1}, {:.1}]", r.model_low, r.model_high)
        };
        s += &format!(
            "{:<40} {:<26} {:>10.3} {:>21} {:>+8.2}% {:>5.1}% {:>6.2} {:>6.2}  {}\n",
            r.case,
            r.quantity,
            r.simulated,
            model,
            r.relative_error * 100.0,
            r.tolerance * 100.0,
            r.channel_wait_us_mean,
            r.channel_late_shift_us_mean,
            if r.pass { "ok" } else { "FAIL" }
        );
    }
    let failed = results.iter().filter(|r| !r.pass).count();
    s += &format!(
        "{} timing checks, {} failed (wait, late: mean channel wait and push-back per transfer, us)\n",
        results.len(),
        failed
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md1_matches_the_pollaczek_khinchine_formula() {
        // Service 40 us at rho 0.5: wait rho S / (2 (1 - rho)) = 20 us.
        assert!((md1_sojourn_us(40.0, 0.5) - 60.0).abs() < 1e-12);
        assert!((md1_sojourn_us(40.0, 0.9) - 220.0).abs() < 1e-9);
        assert_eq!(md1_sojourn_us(40.0, 0.0), 40.0);
    }
}
