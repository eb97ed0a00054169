//! Applications that run on the simulated storage stack: they turn
//! application operations (key-value puts and gets) into block requests, so
//! that the write amplification of the application itself is part of what
//! the simulator measures.

pub mod lsm;
pub mod pcapps;
