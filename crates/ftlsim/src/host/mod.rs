//! Host layers: what sits between a request source and the SSD. Each layer
//! is a [`BlockDevice`](crate::request::BlockDevice) over the layer below
//! it; a [`Stack`] is the list of layers (top to bottom) over the device.
//!
//! A layer is one file: a config struct (its keys, with serde), a type that
//! implements [`HostLayer`], and its line in the registry (`registry.rs`).

pub mod autostream;
pub mod context_streams;
pub mod kmeans;
pub mod layer;
pub mod lba_streams;
pub mod log;
pub mod oracle;
pub mod pc_table;
pub mod pcstream;
pub mod registry;
pub mod stack;

pub use layer::HostLayer;
pub use registry::{HostConfig, LayerConfig, LowerSpace};
pub use stack::Stack;
