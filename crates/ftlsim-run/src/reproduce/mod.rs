//! Experiments that reproduce a paper.

pub mod coldmap;
