//! Interruption: SIGINT, SIGTERM and SIGHUP turned into a flag that the
//! live commands poll between steps and while the user's command runs, so
//! that an interrupted run still takes its mounts and loop device down and
//! prints its report.
//!
//! The handlers come from `signal-hook` (they only store to atomics, which
//! is all a signal handler may safely do). Library callers that install no
//! handlers (tests, the Python bindings) can still stop a run by calling
//! [`Interrupt::request`] from another thread.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use crate::error::{IoContext, Result};

/// The signals that stop a live run gracefully.
pub const SIGNALS: [i32; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// A request to stop: which signal asked (0 while none has).
#[derive(Clone, Default)]
pub struct Interrupt {
    signal: Arc<AtomicUsize>,
}

impl Interrupt {
    /// A flag that only [`Interrupt::request`] sets.
    pub fn new() -> Self {
        Self::default()
    }

    /// A flag that SIGINT, SIGTERM and SIGHUP set. A second one of them
    /// after the first exits at once with 128 + its number and cleans
    /// nothing up: the way out when the cleanup itself hangs (a mount that
    /// will not let go); `ftlsim device cleanup` removes what it leaves.
    pub fn install() -> Result<Self> {
        let me = Self::new();
        let seen = Arc::new(AtomicBool::new(false));
        for sig in SIGNALS {
            // signal-hook runs a signal's actions in the order registered:
            // the exit checks the flag before this signal sets it, so the
            // first signal of the three only sets it.
            signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, Arc::clone(&seen))
                .and_then(|_| signal_hook::flag::register(sig, Arc::clone(&seen)))
                .and_then(|_| {
                    signal_hook::flag::register_usize(sig, Arc::clone(&me.signal), sig as usize)
                })
                .io_context(|| format!("cannot handle {}", signal_name(sig)))?;
        }
        Ok(me)
    }

    /// Asks for a stop as if `signal` had arrived (the first request wins).
    pub fn request(&self, signal: i32) {
        let _ =
            self.signal
                .compare_exchange(0, signal as usize, Ordering::SeqCst, Ordering::SeqCst);
    }

    /// The signal that asked for a stop, if one has.
    pub fn signal(&self) -> Option<i32> {
        match self.signal.load(Ordering::SeqCst) {
            0 => None,
            s => Some(s as i32),
        }
    }

    /// Fails with [`Interrupted`] once a stop was asked for; `during`
    /// names the step it stops ("mkfs", "the command").
    pub fn check(&self, during: &'static str) -> Result<(), Interrupted> {
        match self.signal() {
            Some(signal) => Err(Interrupted { signal, during }),
            None => Ok(()),
        }
    }
}

/// The error a step returns when a signal stopped the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted {
    pub signal: i32,
    /// The step the signal stopped, or the first one it kept from starting.
    pub during: &'static str,
}

impl Interrupted {
    /// The conventional exit status of a process stopped by the signal.
    pub fn exit_status(self) -> u8 {
        (128 + self.signal).clamp(0, 255) as u8
    }
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "interrupted by {} during {}",
            signal_name(self.signal),
            self.during
        )
    }
}

impl std::error::Error for Interrupted {}

/// SIGINT, SIGTERM, ... by number.
pub fn signal_name(signal: i32) -> String {
    match signal {
        libc::SIGHUP => "SIGHUP".into(),
        libc::SIGINT => "SIGINT".into(),
        libc::SIGKILL => "SIGKILL".into(),
        libc::SIGTERM => "SIGTERM".into(),
        s => format!("signal {s}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_request_wins_and_maps_to_128_plus_the_signal() {
        let i = Interrupt::new();
        assert!(i.check("mkfs").is_ok());
        i.request(libc::SIGTERM);
        i.request(libc::SIGINT);
        let e = i.check("mkfs").unwrap_err();
        assert_eq!(e.signal, libc::SIGTERM);
        assert_eq!(e.exit_status(), 143);
        assert_eq!(e.to_string(), "interrupted by SIGTERM during mkfs");
        let at = |signal| Interrupted { signal, during: "" };
        assert_eq!(at(libc::SIGINT).exit_status(), 130);
        assert_eq!(at(libc::SIGHUP).exit_status(), 129);
    }
}
