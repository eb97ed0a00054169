//! Host layers: what sits between a request source and the SSD. Each layer
//! is a [`BlockDevice`](crate::request::BlockDevice) over the layer below
//! it; a [`Stack`] is the list of layers (top to bottom) over the device.
//!
//! A layer is a file here (a type that implements [`HostLayer`]), its keys
//! in `config/host/` (serde, `deny_unknown_fields`, `LayerKeys`), its line
//! in the `layer_types!` list there and its build line in `registry.rs`.

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

pub use crate::config::{HostConfig, LayerConfig, LowerSpace};
pub use layer::HostLayer;
pub use stack::Stack;
