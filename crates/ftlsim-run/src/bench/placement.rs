//! `ftlsim bench --only placement` (issue 29): what each placement scheme
//! costs in simulation speed, on one device and workload (docs/placement.md's
//! example: Zipf 0.99, 10 % over-provisioning), beside the same device
//! without a scheme. The schemes come from the code's list
//! (`ftlsim::ftl::scheme_names`), so a new one is timed without an edit here.

use ftlsim::config::{Config, PlacementSchemeConfig, WorkloadType};
use serde::Serialize;

use super::{device, median, steady_state_rates};
use crate::error::{Result, RunError};

#[derive(Debug, Clone, Serialize)]
pub struct PlacementBenchCase {
    pub name: String,
    pub blocks: u32,
    pub pages_per_block: u32,
    pub spare_factor: f64,
    pub zipf_theta: f64,
    pub runs: Vec<PlacementBenchRun>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PlacementBenchRun {
    /// `none` (no `[ftl.placement_scheme]`: the FTL's shared frontiers) or
    /// the scheme's `type`.
    pub scheme: String,
    /// Median over the timed segments.
    pub host_writes_per_sec: f64,
    pub segments_writes_per_sec: Vec<f64>,
    /// This run's rate over the `none` run's (1.0 for `none`).
    pub rate_vs_none: f64,
    pub waf: f64,
}

const SPARE_FACTOR: f64 = 0.1;
const ZIPF_THETA: f64 = 0.99;

pub fn placement_case(
    quick: bool,
    segments: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<PlacementBenchCase> {
    super::check_segments(segments)?;
    let blocks = if quick { 1024 } else { 4096 };
    let mut runs: Vec<PlacementBenchRun> = Vec::new();
    let schemes = std::iter::once("none".to_string()).chain(ftlsim::ftl::scheme_names());
    for scheme in schemes {
        progress(&format!(
            "placement {scheme}, Zipf {ZIPF_THETA}, {blocks} blocks x 256 pages"
        ));
        let mut cfg: Config = device(blocks, 256, SPARE_FACTOR);
        cfg.workload.kind = WorkloadType::Zipf;
        cfg.workload.zipf_theta = ZIPF_THETA;
        if scheme != "none" {
            let toml_text = format!("type = \"{scheme}\"");
            let parsed: PlacementSchemeConfig = toml::from_str(&toml_text).map_err(|e| {
                RunError::Internal(format!("scheme {scheme} from the list does not parse: {e}"))
            })?;
            cfg.ftl.placement_scheme = Some(parsed);
        }
        // A scheme that foresees knows one measured window (its pre-pass
        // runs the config's phases once): one segment, its rate alone.
        let scheme_segments = if cfg.foresees() { 1 } else { segments };
        let (sim, rates, _) = steady_state_rates(&cfg, scheme_segments)?;
        let report = sim.finish()?;
        let rate = median(&rates);
        let none_rate = runs.first().map_or(rate, |r| r.host_writes_per_sec);
        runs.push(PlacementBenchRun {
            scheme,
            host_writes_per_sec: rate,
            segments_writes_per_sec: rates,
            rate_vs_none: rate / none_rate,
            waf: report.window.waf.unwrap_or(0.0),
        });
    }
    Ok(PlacementBenchCase {
        name: format!(
            "placement schemes, Zipf {ZIPF_THETA}, {blocks} blocks x 256 pages, Sf {SPARE_FACTOR}"
        ),
        blocks,
        pages_per_block: 256,
        spare_factor: SPARE_FACTOR,
        zipf_theta: ZIPF_THETA,
        runs,
    })
}

pub fn render_placement(case: &PlacementBenchCase) -> String {
    let mut s = format!("{}\n", case.name);
    for r in &case.runs {
        s += &format!(
            "  {:<10} {:>6.2} M host writes/s (median of {}), {:.2} x none, WAF {:.3}\n",
            r.scheme,
            r.host_writes_per_sec / 1e6,
            r.segments_writes_per_sec.len(),
            r.rate_vs_none,
            r.waf
        );
    }
    s
}
