//! The stack: host layers, top to bottom, over the SSD — the one place the
//! device and its host layers are composed (a run, the Python `Device` and
//! the live device all build one). With no layers it is the SSD alone,
//! which the run drives directly (`Stack::is_plain`).

use super::layer::HostLayer;
use super::oracle::{Lifetimes, Record};
use crate::config::Config;
use crate::error::SimError;
use crate::ftl::{Ssd, SsdOptions};
use crate::metrics::LayerStats;
use crate::plan::{HostPlan, Plan};
use crate::request::{BlockDevice, Completion, Hint, Request};

/// Host layers over an SSD. The SSD stays reachable for the driver
/// (sampling, timing, the report); requests enter at the top layer.
pub struct Stack {
    layers: Vec<Box<dyn HostLayer>>,
    /// Logical pages above each layer, top to bottom.
    logical_pages: Vec<u64>,
    ssd: Ssd,
    /// Every layer keeps addresses (`HostLayer::keeps_addresses`).
    transparent: bool,
    /// The oracle's pre-pass: every page written or trimmed at the top.
    record: Option<Record>,
}

impl Stack {
    /// The device of `cfg` and its host layers, planned once.
    pub fn build(cfg: &Config, options: &SsdOptions) -> Result<Self, SimError> {
        let plan = Plan::from_config(cfg)?;
        // A device driven request by request has no workload to look ahead in.
        if cfg.foresees() {
            let key = if cfg.host.has_oracle() {
                "host.layers"
            } else {
                "ftl.placement_scheme"
            };
            return Err(crate::ConfigError::new(
                key,
                "foresees its workload from a pre-pass over a run (`ftlsim run`, ftlsim.run in Python); a device driven request by request has none",
            )
            .into());
        }
        Ok(Self::from_plan(
            &plan.host,
            Ssd::from_plan(&plan.ssd, options),
            None,
        ))
    }

    /// Builds the layers of `cfg.host` over `ssd` (config already validated).
    pub fn new(cfg: &Config, ssd: Ssd) -> Result<Self, SimError> {
        Ok(Self::from_plan(&Plan::from_config(cfg)?.host, ssd, None))
    }

    /// The layers of the host plan over `ssd`, with the oracle pre-pass's
    /// lifetimes for an oracle layer (`None`: the pre-pass itself, or no
    /// oracle).
    pub fn from_plan(plan: &HostPlan, ssd: Ssd, future: Option<&Lifetimes>) -> Self {
        let config = &plan.layers;
        let mut below = plan.device_space;
        let mut layers = Vec::with_capacity(config.layers.len());
        let mut logical_pages = Vec::with_capacity(config.layers.len());
        for layer in config.layers.iter().rev() {
            layers.push(layer.build(&below, future));
            below = below.above(layer);
            logical_pages.push(below.pages);
        }
        layers.reverse();
        logical_pages.reverse();
        let transparent = layers.iter().all(|l| l.keeps_addresses());
        Self {
            layers,
            logical_pages,
            ssd,
            transparent,
            record: None,
        }
    }

    /// No host layers and nothing recorded: the SSD alone, which the run
    /// drives directly (so a pre-pass's recording stack is not plain).
    pub fn is_plain(&self) -> bool {
        self.layers.is_empty() && self.record.is_none()
    }

    pub fn ssd(&self) -> &Ssd {
        &self.ssd
    }

    pub fn ssd_mut(&mut self) -> &mut Ssd {
        &mut self.ssd
    }

    /// Whether every layer passes requests down at their own addresses, so
    /// the device's read-ahead can go straight to the SSD.
    pub fn transparent(&self) -> bool {
        self.transparent
    }

    /// The second read-ahead stage of a write to `lpn` (see `HostLayer::prefetch_mapped`).
    #[inline]
    pub fn prefetch_mapped(&self, lpn: u64) {
        if let Some(top) = self.layers.first() {
            top.prefetch_mapped(lpn);
        }
    }

    /// The device page that holds top-level page `lpn`, if any: the address
    /// after every layer's translation.
    pub fn device_lpn(&self, lpn: u64) -> Option<u64> {
        self.layers
            .iter()
            .try_fold(lpn, |lpn, layer| layer.translate(lpn))
    }

    /// From here on, notes every page written or trimmed at the top (the
    /// oracle's pre-pass).
    pub fn start_recording(&mut self) {
        self.record = Some(Record::default());
    }

    /// What was noted since [`Stack::start_recording`].
    pub fn take_record(&mut self) -> Record {
        self.record.take().unwrap_or_default()
    }

    /// Checks every layer's invariants and the device's.
    pub fn check_invariants(&self) -> Result<(), SimError> {
        for layer in &self.layers {
            layer.check()?;
        }
        self.ssd.check_invariants()
    }
}

/// Logical pages above the top of `layers` (the SSD's when there is none).
fn top_logical_pages(logical_pages: &[u64], ssd: &Ssd) -> u64 {
    logical_pages
        .first()
        .copied()
        .unwrap_or_else(|| u64::from(ssd.logical_pages()))
}

/// Every layer's statistics, top to bottom, the SSD last.
fn stack_stats(layers: &[Box<dyn HostLayer>], ssd: &Ssd, out: &mut Vec<LayerStats>) {
    out.extend(layers.iter().map(|l| l.stats()));
    ssd.layer_stats(out);
}

/// The part of a stack below some layer, as a device.
struct Below<'a> {
    layers: &'a mut [Box<dyn HostLayer>],
    /// Logical pages above each of `layers`.
    logical_pages: &'a [u64],
    ssd: &'a mut Ssd,
}

impl BlockDevice for Below<'_> {
    fn submit(&mut self, req: &Request) -> Result<Completion, SimError> {
        match self.layers.split_first_mut() {
            None => self.ssd.submit(req),
            Some((top, rest)) => top.submit(
                req,
                &mut Below {
                    layers: rest,
                    logical_pages: &self.logical_pages[1..],
                    ssd: self.ssd,
                },
            ),
        }
    }

    fn logical_pages(&self) -> u64 {
        top_logical_pages(self.logical_pages, self.ssd)
    }

    fn layer_stats(&self, out: &mut Vec<LayerStats>) {
        stack_stats(self.layers, self.ssd, out);
    }

    fn hint(&mut self, hint: Hint) {
        match self.layers.split_first_mut() {
            None => self.ssd.hint(hint),
            Some((top, rest)) => top.hint(
                hint,
                &mut Below {
                    layers: rest,
                    logical_pages: &self.logical_pages[1..],
                    ssd: self.ssd,
                },
            ),
        }
    }
}

impl BlockDevice for Stack {
    fn submit(&mut self, req: &Request) -> Result<Completion, SimError> {
        if let Some(record) = &mut self.record {
            record.note(req);
        }
        Below {
            layers: &mut self.layers,
            logical_pages: &self.logical_pages,
            ssd: &mut self.ssd,
        }
        .submit(req)
    }

    fn logical_pages(&self) -> u64 {
        top_logical_pages(&self.logical_pages, &self.ssd)
    }

    fn layer_stats(&self, out: &mut Vec<LayerStats>) {
        stack_stats(&self.layers, &self.ssd, out);
    }

    fn hint(&mut self, hint: Hint) {
        Below {
            layers: &mut self.layers,
            logical_pages: &self.logical_pages,
            ssd: &mut self.ssd,
        }
        .hint(hint);
    }

    #[inline]
    fn prefetch(&self, lpn: u64) {
        match self.layers.first() {
            Some(top) if !self.transparent => top.prefetch(lpn),
            _ => self.ssd.prefetch(lpn),
        }
    }
}
