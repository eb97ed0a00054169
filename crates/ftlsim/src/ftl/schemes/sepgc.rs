//! SepGC: user writes in class 0, GC writes in class 1 (ftlsim's
//! `ftl.frontiers = "separate"` with one stream).

use super::{PlacementScheme, GcWrite, SchemeSpace, UserWrite};
use crate::config::PlacementSchemeConfig;

#[derive(Debug, Clone)]
pub(crate) struct Sepgc;

impl PlacementScheme for Sepgc {
    type Config = PlacementSchemeConfig;

    fn new(_: &PlacementSchemeConfig, _: SchemeSpace) -> Self {
        Sepgc
    }

    fn user_class(&mut self, _: &UserWrite) -> u16 {
        0
    }

    fn gc_class(&mut self, _: &GcWrite) -> u16 {
        1
    }
}
