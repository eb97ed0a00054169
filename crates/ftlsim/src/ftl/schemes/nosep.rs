//! NoSep: one class for every write, user or GC (the baseline of SepBIT's
//! evaluation; ftlsim's `ftl.frontiers = "shared"` with one stream).

use super::{PlacementScheme, GcWrite, SchemeSpace, UserWrite};
use crate::config::PlacementSchemeConfig;

#[derive(Debug, Clone)]
pub(crate) struct Nosep;

impl PlacementScheme for Nosep {
    type Config = PlacementSchemeConfig;

    fn new(_: &PlacementSchemeConfig, _: SchemeSpace) -> Self {
        Nosep
    }

    fn user_class(&mut self, _: &UserWrite) -> u16 {
        0
    }

    fn gc_class(&mut self, _: &GcWrite) -> u16 {
        0
    }
}
