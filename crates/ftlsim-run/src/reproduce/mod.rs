//! Experiments that reproduce a paper.

pub mod coldmap;
pub mod spec;
