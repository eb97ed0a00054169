//! `ftlsim crash-test`: run a config's workload, cut power at random flash
//! operations (inside GC and remaps too), recover from the flash image, and
//! check the device against a reference model after every recovery.
//!
//! The model keeps, per LPN, the content the last *acknowledged* request left
//! (durable: its writes on flash or protected, its journal records written)
//! and the contents later, unacknowledged requests would leave. After a
//! recovery every LPN must read one of those: reading nothing instead of an
//! acknowledged write is a lost page, reading an old version where a trim was
//! acknowledged is a resurrected page, and reading something never written
//! to that LPN is a foreign page. The invariant checker must pass too.

use std::collections::{HashMap, HashSet, VecDeque};

use ftlsim::config::{Config, DEFAULT_WRITES};
use ftlsim::ftl::durability::BrokenRecovery;
use ftlsim::plan::Plan;
use ftlsim::workload::Generator;
use ftlsim::{Op, SimError, Ssd, SsdOptions};
use serde::Serialize;

use crate::error::{Result, RunError};

#[derive(Debug, Clone)]
pub struct CrashOptions {
    pub cuts: u64,
    /// Seed of the cut points and of the remap/clone traffic (the workload
    /// keeps `workload.seed`).
    pub seed: u64,
    /// Share of requests that are remaps (and clones, with sharing on).
    pub remap_fraction: f64,
    /// A flush every this many requests (0 = none).
    pub flush_every_requests: u64,
    /// Test-only: a deliberately wrong recovery.
    pub broken: Option<BrokenRecovery>,
}

impl CrashOptions {
    pub fn new(cuts: u64, seed: u64) -> Self {
        Self {
            cuts,
            seed,
            remap_fraction: 0.0,
            flush_every_requests: 0,
            broken: None,
        }
    }
}

/// The sweep's result. The first six keys are the JSON contract.
#[derive(Debug, Clone, Serialize)]
pub struct CrashReport {
    pub cuts: u64,
    /// Cuts after which anything was wrong.
    pub failures: u64,
    pub lost_pages: u64,
    pub resurrected_pages: u64,
    pub recovery_ns_p50: u64,
    pub recovery_ns_p99: u64,
    pub recovery_ns_max: u64,
    /// LPNs that read content never written to them.
    pub foreign_pages: u64,
    /// Pages whose last, unacknowledged change was lost: allowed.
    pub unacknowledged_lost_pages: u64,
    /// Recoveries after which the invariant checker failed.
    pub invariant_failures: u64,
    /// Reads during the run that disagreed with the model.
    pub read_mismatches: u64,
    pub pages_scanned_p50: u64,
    pub pages_scanned_max: u64,
    pub cuts_in_gc: u64,
    pub cuts_in_remap: u64,
    pub requests: u64,
    pub host_write_pages: u64,
    pub nand_write_pages: u64,
    pub waf: f64,
    pub journal_pages: u64,
    pub checkpoint_pages: u64,
    /// Journal / checkpoint pages per host page write: their share of WAF.
    pub journal_waf: f64,
    pub checkpoint_waf: f64,
    /// GC reclaims that erased before copying (no free block): unsafe windows.
    pub unsafe_reclaims: u64,
    pub checkpoint_interval_pages: u64,
    pub journal_batch: u32,
    pub write_buffer_pages: u32,
    pub power_loss_protection: bool,
    pub seed: u64,
    /// What went wrong first, for a person to start from.
    pub first_failure: Option<String>,
}

/// A small counter-based generator for the cut points (SplitMix64).
struct CutRng(u64);

impl CutRng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        ftlsim::hash::splitmix64(self.0)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}

type Content = Option<u64>;

/// The reference model: what each LPN holds, what was acknowledged, and
/// what may still change at a cut.
struct Model {
    current: Vec<Content>,
    committed: Vec<Content>,
    /// Requests not yet acknowledged: (sequence number all their events are
    /// below, the contents they leave).
    pending: VecDeque<(u64, Vec<(u32, Content)>)>,
    /// Every (LPN, content) that ever was current.
    seen: HashSet<(u32, u64)>,
}

impl Model {
    fn new(logical: usize) -> Self {
        Self {
            current: vec![None; logical],
            committed: vec![None; logical],
            pending: VecDeque::new(),
            seen: HashSet::new(),
        }
    }

    fn set(&mut self, lpn: u32, content: Content, changes: &mut Vec<(u32, Content)>) {
        self.current[lpn as usize] = content;
        if let Some(c) = content {
            self.seen.insert((lpn, c));
        }
        changes.push((lpn, content));
    }

    fn acknowledge(&mut self, durable_seq: u64) {
        while self.pending.front().is_some_and(|p| p.0 <= durable_seq) {
            let (_, changes) = self.pending.pop_front().expect("non-empty");
            for (lpn, c) in changes {
                self.committed[lpn as usize] = c;
            }
        }
    }
}

#[derive(Default)]
struct Tally {
    /// Pages that read an older state than the last request left, allowed
    /// because that request was not acknowledged (buffered, batched, cut).
    unacknowledged_lost: u64,
    lost: u64,
    resurrected: u64,
    foreign: u64,
}

/// Compares the recovered device with the model and resets the model to it.
fn check(ssd: &Ssd, model: &mut Model) -> Tally {
    let mut later: HashMap<u32, Vec<Content>> = HashMap::new();
    for (_, changes) in &model.pending {
        for &(lpn, c) in changes {
            later.entry(lpn).or_default().push(c);
        }
    }
    let mut t = Tally::default();
    for lpn in 0..model.current.len() as u32 {
        let got = ssd.peek_content(u64::from(lpn));
        let want = model.committed[lpn as usize];
        let allowed = |c: Content| c == want || later.get(&lpn).is_some_and(|v| v.contains(&c));
        if allowed(got) {
            t.unacknowledged_lost += u64::from(got != model.current[lpn as usize]);
        } else {
            let any_data = want.is_some()
                || later
                    .get(&lpn)
                    .is_some_and(|v| v.iter().any(Option::is_some));
            match got {
                None => t.lost += 1,
                Some(v) if !model.seen.contains(&(lpn, v)) => t.foreign += 1,
                Some(_) if any_data => t.lost += 1,
                Some(_) => t.resurrected += 1,
            }
        }
        model.current[lpn as usize] = got;
        model.committed[lpn as usize] = got;
    }
    model.pending.clear();
    t
}

/// The most cuts one sweep takes: each is a full recovery (a scan of the
/// flash image), about 10 ms on examples/power-loss.toml, so a million is
/// hours of work; more is a mistake rather than a plan.
pub const MAX_CUTS: u64 = 1_000_000;

/// Checks what the crash test cannot model before anything runs: each
/// refusal names the key or flag.
fn refuse_unmodelled(cfg: &Config, opts: &CrashOptions) -> Result<()> {
    if opts.cuts == 0 {
        return Err(RunError::Input(
            "--cuts 0: a crash test needs at least one cut".into(),
        ));
    }
    if opts.cuts > MAX_CUTS {
        return Err(RunError::Input(format!(
            "--cuts {}: at most {MAX_CUTS} cuts per sweep (each is a full recovery); run several sweeps with different --seed",
            opts.cuts
        )));
    }
    if !(0.0..=1.0).contains(&opts.remap_fraction) {
        return Err(RunError::Input(format!(
            "--remap-fraction {} is outside [0, 1]",
            opts.remap_fraction
        )));
    }
    if !cfg.host.layers.is_empty() {
        return Err(RunError::Input("crash-test drives the device directly; remove [[host.layers]] (host layers keep no state on flash)".into()));
    }
    // The sweep drives pages through the block-level generator; application
    // models and traces have request streams of their own it does not replay.
    crate::synth::require_block_workload(cfg, "crash-test drives")?;
    check_crash_memory(cfg)
}

/// The run's memory check, with what the sweep adds: the flash image (on
/// even where the config does not ask for tracking), page fingerprints, and
/// the reference model's two contents per logical page.
fn check_crash_memory(cfg: &Config) -> Result<()> {
    let (physical, logical) = (cfg.physical_pages(), cfg.logical_pages());
    let mut extra = physical
        .saturating_mul(8)
        .saturating_add(logical.saturating_mul(32));
    if !cfg.ftl.power_loss_tracking() {
        extra = extra.saturating_add(cfg.flash_image_bytes());
    }
    crate::simulate::check_memory_bytes(cfg, cfg.estimated_state_bytes().saturating_add(extra))
}

/// Host page writes the config's workload plans (warm-up and measured).
fn planned_pages(cfg: &Config) -> u64 {
    let logical = cfg.logical_pages();
    let measured = match cfg.workload.requests {
        Some(r) => r.saturating_mul(u64::from(cfg.workload.request_pages)),
        None => cfg
            .workload
            .writes
            .unwrap_or(DEFAULT_WRITES)
            .to_pages(logical),
    };
    cfg.warmup_pages().saturating_add(measured)
}

fn percentile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// Runs the sweep. `progress(cuts done, cuts)` is called after each cut.
pub fn crash_test(
    cfg: &Config,
    opts: &CrashOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<CrashReport> {
    refuse_unmodelled(cfg, opts)?;
    let plan = Plan::from_config(cfg).map_err(SimError::from)?;
    let mut ssd = Ssd::from_plan(
        &plan.ssd,
        &SsdOptions {
            track_content: true,
            survival: false,
        },
    );
    ssd.track_power_loss(cfg)?;
    ssd.set_broken_recovery(opts.broken);
    let logical = u64::from(ssd.logical_pages());
    let span = cfg.span_pages();
    let mut gen = Generator::from_plan(&plan.workload);
    let dedup_content = cfg.ftl.dedup && gen.has_content();
    let mut rng = CutRng(ftlsim::hash::splitmix64(opts.seed ^ 0xc7a5_4e57));
    let mut model = Model::new(logical as usize);
    let mean_gap = (planned_pages(cfg) / opts.cuts).max(1);
    let max_requests = planned_pages(cfg)
        .saturating_add(opts.cuts)
        .saturating_mul(100)
        .saturating_add(1_000_000);
    let mut version = 0u64;
    let mut report = CrashReport {
        cuts: opts.cuts,
        failures: 0,
        lost_pages: 0,
        resurrected_pages: 0,
        recovery_ns_p50: 0,
        recovery_ns_p99: 0,
        recovery_ns_max: 0,
        foreign_pages: 0,
        unacknowledged_lost_pages: 0,
        invariant_failures: 0,
        read_mismatches: 0,
        pages_scanned_p50: 0,
        pages_scanned_max: 0,
        cuts_in_gc: 0,
        cuts_in_remap: 0,
        requests: 0,
        host_write_pages: 0,
        nand_write_pages: 0,
        waf: 0.0,
        journal_pages: 0,
        checkpoint_pages: 0,
        journal_waf: 0.0,
        checkpoint_waf: 0.0,
        unsafe_reclaims: 0,
        checkpoint_interval_pages: cfg.ftl.checkpoint_interval_pages,
        journal_batch: cfg.ftl.journal_batch,
        write_buffer_pages: cfg.ftl.write_buffer_pages,
        power_loss_protection: cfg.ftl.power_loss_protection,
        seed: opts.seed,
        first_failure: None,
    };
    let mut recovery_ns = Vec::new();
    let mut scanned = Vec::new();
    let mut done = 0u64;
    ssd.arm_power_cut(1 + rng.below(2 * mean_gap));
    while done < opts.cuts {
        report.requests += 1;
        if report.requests > max_requests {
            return Err(RunError::Input(format!("the workload made no flash operation in {max_requests} requests: no cut can land (is it read-only?)")));
        }
        let mut changes = Vec::new();
        // After a failed cut the device may be in any state; an error from
        // it then ends the sweep with the report (the failure is what
        // counts). Before any failure it is the simulator's error.
        let mut request = || -> std::result::Result<(), SimError> {
            let flush = opts.flush_every_requests > 0
                && report.requests.is_multiple_of(opts.flush_every_requests);
            if flush {
                ssd.flush();
            } else if rng.chance(opts.remap_fraction) {
                let (src, dst) = (gen.next_write(), gen.next_write());
                let len = gen
                    .request_size(src)
                    .min(span.saturating_sub(dst) as u32)
                    .max(1);
                let clone = cfg.sharing() && rng.chance(0.5);
                let result = if clone {
                    ssd.clone_range(src, dst, u64::from(len))
                } else {
                    ssd.remap(src, dst, u64::from(len))
                };
                match result {
                    Ok(()) => {
                        for i in 0..u64::from(len) {
                            let (s, d) = ((src + i) as u32, (dst + i) as u32);
                            let moving = model.current[s as usize];
                            model.set(d, moving, &mut changes);
                            if !clone {
                                model.set(s, None, &mut changes);
                            }
                        }
                    }
                    // Refused (unmapped source, overlap): nothing changed.
                    Err(SimError::BadRequest(_)) => {}
                    Err(e) => return Err(e),
                }
            } else {
                let item = gen.next_request();
                for i in 0..u64::from(item.pages) {
                    let lpn = item.lpn + i;
                    match item.op {
                        Op::Write => {
                            let content = if dedup_content {
                                gen.next_content()
                            } else {
                                version += 1;
                                ftlsim::hash::splitmix64(version ^ 0x005e_ed0f_da7a)
                            };
                            ssd.write_page(lpn, 0, content)?;
                            model.set(lpn as u32, Some(content), &mut changes);
                        }
                        Op::Trim => {
                            ssd.trim_page(lpn)?;
                            model.set(lpn as u32, None, &mut changes);
                        }
                        Op::Read if !ssd.power_lost() => {
                            let got = ssd.read_page(lpn)?.map(|r| r.content);
                            if got != model.current[lpn as usize] {
                                report.read_mismatches += 1;
                                report.first_failure.get_or_insert_with(|| {
                                    format!(
                                        "request {}: read of LPN {lpn} disagrees with the model",
                                        report.requests
                                    )
                                });
                            }
                        }
                        _ => {}
                    }
                }
            }
            Ok(())
        };
        if let Err(e) = request() {
            if report.failures == 0 {
                return Err(e.into());
            }
            report.first_failure = Some(format!(
                "{} (then, at request {}: {e})",
                report.first_failure.take().unwrap_or_default(),
                report.requests
            ));
            report.cuts = done;
            break;
        }
        let lost = ssd.power_lost();
        if !changes.is_empty() {
            let end = if lost { u64::MAX } else { ssd.event_seq() };
            model.pending.push_back((end, changes));
        }
        model.acknowledge(ssd.durable_seq());
        if !lost {
            continue;
        }
        // The cut fired during this request: power off, recover, check.
        let (in_gc, in_remap) = ssd.cut_context();
        report.cuts_in_gc += u64::from(in_gc);
        report.cuts_in_remap += u64::from(in_remap);
        ssd.power_cut()?;
        let rec = ssd.recover()?;
        recovery_ns.push(rec.recovery_ns);
        scanned.push(rec.pages_scanned);
        let mut bad = false;
        if let Err(e) = ssd.check_invariants() {
            report.invariant_failures += 1;
            bad = true;
            report
                .first_failure
                .get_or_insert_with(|| format!("cut {}: {e}", done + 1));
        }
        let t = check(&ssd, &mut model);
        report.unacknowledged_lost_pages += t.unacknowledged_lost;
        if t.lost + t.resurrected + t.foreign > 0 {
            bad = true;
            report.first_failure.get_or_insert_with(|| {
                format!(
                    "cut {}: {} lost, {} resurrected, {} foreign pages",
                    done + 1,
                    t.lost,
                    t.resurrected,
                    t.foreign
                )
            });
        }
        if bad && report.invariant_failures > 0 {
            // A device that fails its own invariants cannot go on safely.
            report.lost_pages += t.lost;
            report.resurrected_pages += t.resurrected;
            report.foreign_pages += t.foreign;
            report.failures += 1;
            done += 1;
            report.cuts = done;
            break;
        }
        report.lost_pages += t.lost;
        report.resurrected_pages += t.resurrected;
        report.foreign_pages += t.foreign;
        report.failures += u64::from(bad);
        done += 1;
        progress(done, opts.cuts);
        ssd.arm_power_cut(1 + rng.below(2 * mean_gap));
    }
    recovery_ns.sort_unstable();
    scanned.sort_unstable();
    report.recovery_ns_p50 = percentile(&recovery_ns, 0.5);
    report.recovery_ns_p99 = percentile(&recovery_ns, 0.99);
    report.recovery_ns_max = recovery_ns.last().copied().unwrap_or(0);
    report.pages_scanned_p50 = percentile(&scanned, 0.5);
    report.pages_scanned_max = scanned.last().copied().unwrap_or(0);
    let c = &ssd.counters();
    report.host_write_pages = c.host_write_pages;
    report.nand_write_pages = c.nand_write_pages;
    let host = c.host_write_pages.max(1) as f64;
    report.waf = c.nand_write_pages as f64 / host;
    if let Some(s) = ssd.power_loss_stats() {
        report.journal_pages = s.journal_pages;
        report.checkpoint_pages = s.checkpoint_pages;
        report.unsafe_reclaims = s.unsafe_reclaims;
        report.journal_waf = s.journal_pages as f64 / host;
        report.checkpoint_waf = s.checkpoint_pages as f64 / host;
    }
    Ok(report)
}

/// The summary table.
pub fn render(r: &CrashReport) -> String {
    let mut out = String::new();
    let mut row = |k: &str, v: String| out.push_str(&format!("{k:<28} {v}\n"));
    row("cuts", r.cuts.to_string());
    row("  inside GC", r.cuts_in_gc.to_string());
    row("  inside remap/clone", r.cuts_in_remap.to_string());
    row("failures", r.failures.to_string());
    row("lost pages", r.lost_pages.to_string());
    row("resurrected pages", r.resurrected_pages.to_string());
    row("foreign pages", r.foreign_pages.to_string());
    row(
        "unacknowledged, rolled back",
        r.unacknowledged_lost_pages.to_string(),
    );
    row("invariant failures", r.invariant_failures.to_string());
    row("unsafe GC reclaims", r.unsafe_reclaims.to_string());
    row(
        "pages scanned p50 / max",
        format!("{} / {}", r.pages_scanned_p50, r.pages_scanned_max),
    );
    row(
        "recovery time p50 / p99",
        format!(
            "{:.3} ms / {:.3} ms",
            r.recovery_ns_p50 as f64 / 1e6,
            r.recovery_ns_p99 as f64 / 1e6
        ),
    );
    row("requests", r.requests.to_string());
    row("WAF", format!("{:.4}", r.waf));
    row(
        "  journal pages (WAF)",
        format!("{} ({:.4})", r.journal_pages, r.journal_waf),
    );
    row(
        "  checkpoint pages (WAF)",
        format!("{} ({:.4})", r.checkpoint_pages, r.checkpoint_waf),
    );
    if let Some(f) = &r.first_failure {
        row("first failure", f.clone());
    }
    out
}
