//! `ftlsim validate`: simulated WAF against the analytical models of
//! ../shared/reference/analytical-waf.md, implemented in `ftlsim::analytic`.

use ftlsim::analytic;
use ftlsim::config::{Amount, Config, FrontierMode, GcPolicyName, WorkloadType};
use serde::Serialize;

use crate::error::Result;

/// One comparison: a device and workload, and the model's WAF for it.
struct Case {
    name: String,
    config: Config,
    model_waf: f64,
    model: &'static str,
    /// Largest accepted |simulated − model| / model.
    tolerance: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    pub case: String,
    pub model: &'static str,
    pub blocks: u32,
    pub pages_per_block: u32,
    pub spare_factor: f64,
    pub simulated_waf: f64,
    pub model_waf: f64,
    pub relative_error: f64,
    pub tolerance: f64,
    pub pass: bool,
}

/// The models' setting: one shared frontier, no hidden reserve, no wear-out,
/// sequential fill then several logical capacities of warm-up before measuring.
fn base(blocks: u32, pages_per_block: u32, spare_factor: f64, quick: bool) -> Config {
    let mut c = Config::default();
    c.device.blocks = blocks;
    c.device.pages_per_block = pages_per_block;
    c.device.spare_factor = spare_factor;
    c.device.pe_cycle_limit = 0;
    c.ftl.frontiers = FrontierMode::Shared;
    c.ftl.gc_low_watermark = 0;
    c.ftl.gc_high_watermark = 0;
    c.workload.kind = WorkloadType::Uniform;
    c.workload.warmup = Some(Amount::Capacity(if quick { 3.0 } else { 5.0 }));
    c.workload.writes = Some(Amount::Capacity(if quick { 2.0 } else { 5.0 }));
    c.metrics.survival = false;
    c
}

fn cases(quick: bool) -> Vec<Case> {
    let mut out = Vec::new();
    let blocks = 4096;
    let greedy_grid: &[(u32, f64)] = if quick {
        &[(64, 0.10), (128, 0.20), (256, 0.07)]
    } else {
        &[
            (64, 0.07),
            (64, 0.10),
            (64, 0.28),
            (128, 0.10),
            (128, 0.20),
            (256, 0.07),
            (256, 0.10),
            (256, 0.28),
        ]
    };
    for &(b, sf) in greedy_grid {
        let alpha = analytic::alpha_from_spare_factor(sf);
        out.push(Case {
            name: format!("uniform greedy b={b} Sf={sf}"),
            config: base(blocks, b, sf, quick),
            model_waf: analytic::waf_greedy(alpha, b),
            model: "greedy mean-field",
            tolerance: 0.01,
        });
    }
    let fifo_sf: &[f64] = if quick { &[0.10] } else { &[0.07, 0.10, 0.20] };
    for &sf in fifo_sf {
        let mut c = base(blocks, 64, sf, quick);
        c.ftl.gc_policy = GcPolicyName::Fifo;
        out.push(Case {
            name: format!("uniform fifo b=64 Sf={sf}"),
            config: c,
            model_waf: analytic::waf_fifo(analytic::alpha_from_spare_factor(sf)),
            model: "FIFO exact",
            tolerance: 0.01,
        });
    }
    let random_sf: &[f64] = if quick { &[0.20] } else { &[0.10, 0.20] };
    for &sf in random_sf {
        let mut c = base(blocks, 64, sf, quick);
        c.ftl.gc_policy = GcPolicyName::Random;
        out.push(Case {
            name: format!("uniform random b=64 Sf={sf}"),
            config: c,
            model_waf: analytic::waf_random(sf),
            model: "random 1/Sf",
            tolerance: 0.02,
        });
    }
    let d_grid: &[(u32, f64)] = if quick {
        &[(4, 0.10)]
    } else {
        &[(2, 0.10), (4, 0.10), (16, 0.10), (4, 0.20)]
    };
    for &(d, sf) in d_grid {
        let mut c = base(blocks, 64, sf, quick);
        c.ftl.gc_policy = GcPolicyName::DChoices;
        c.ftl.gc_choices = d;
        out.push(Case {
            name: format!("uniform d-choices d={d} b=64 Sf={sf}"),
            config: c,
            model_waf: analytic::waf_d_choices(analytic::alpha_from_spare_factor(sf), 64, d),
            model: "d-choices mean-field",
            tolerance: 0.02,
        });
    }
    // Hot/cold mixed in one frontier under greedy has no exact model; the
    // reference gives an independent simulation with 2048 blocks, b = 64.
    let hot_cold: &[(f64, f64, f64, f64)] = if quick {
        &[(0.9, 0.1, 0.10, 5.893)]
    } else {
        &[
            (0.9, 0.1, 0.07, 7.757),
            (0.9, 0.1, 0.10, 5.893),
            (0.9, 0.1, 0.20, 3.474),
            (0.8, 0.2, 0.07, 6.981),
            (0.8, 0.2, 0.10, 5.191),
            (0.8, 0.2, 0.20, 2.953),
        ]
    };
    for &(r, f, sf, simulated) in hot_cold {
        let mut c = base(2048, 64, sf, quick);
        c.workload.kind = WorkloadType::HotCold;
        c.workload.hot_write_fraction = r;
        c.workload.hot_space_fraction = f;
        out.push(Case {
            name: format!("hot/cold {r}/{f} greedy b=64 Sf={sf}"),
            config: c,
            model_waf: simulated,
            model: "reference simulation (2048 blocks)",
            tolerance: 0.03,
        });
    }
    out
}

/// Runs every case; `progress` hears each case's name before it runs.
pub fn run_validation(
    quick: bool,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<Vec<CaseResult>> {
    let all = cases(quick);
    let total = all.len();
    let mut results = Vec::with_capacity(total);
    for (i, case) in all.into_iter().enumerate() {
        progress(i, total, &case.name);
        let report = ftlsim::run(&case.config, &ftlsim::RunOptions::default(), &mut |_| {})?;
        let simulated_waf = report.window.waf.unwrap_or(f64::NAN);
        let relative_error = (simulated_waf - case.model_waf) / case.model_waf;
        results.push(CaseResult {
            case: case.name,
            model: case.model,
            blocks: case.config.device.blocks,
            pages_per_block: case.config.device.pages_per_block,
            spare_factor: case.config.device.spare_factor,
            simulated_waf,
            model_waf: case.model_waf,
            relative_error,
            tolerance: case.tolerance,
            pass: relative_error.abs() <= case.tolerance,
        });
    }
    Ok(results)
}

pub fn render(results: &[CaseResult]) -> String {
    let mut s = format!(
        "{:<40} {:>7} {:>10} {:>10} {:>9} {:>6}  {}\n",
        "case", "blocks", "simulated", "model", "error", "tol", "result"
    );
    for r in results {
        s += &format!(
            "{:<40} {:>7} {:>10.4} {:>10.4} {:>+8.3}% {:>5.1}%  {}\n",
            r.case,
            r.blocks,
            r.simulated_waf,
            r.model_waf,
            r.relative_error * 100.0,
            r.tolerance * 100.0,
            if r.pass { "ok" } else { "FAIL" }
        );
    }
    let failed = results.iter().filter(|r| !r.pass).count();
    s += &format!("{} cases, {} failed\n", results.len(), failed);
    s
}
