//! `GcPolicy`: which victim policy a log uses, with the keys it carries.

use crate::error::ConfigError;

/// A victim policy as a log runs it: the configured name, checked, with the
/// parameters it needs (d-choices carries its d).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GcPolicy {
    /// The segment with the fewest valid pages.
    Greedy,
    /// Rosenblum and Ousterhout's age · (1 − u) / 2u.
    CostBenefit,
    /// The segment sealed first.
    Fifo,
    /// A full segment drawn uniformly.
    Random,
    /// The emptiest of `choices` full segments drawn uniformly.
    DChoices { choices: u32 },
}

impl GcPolicy {
    /// d-choices with `choices` candidates, which `choices_key` names in an
    /// error (`ftl.gc_choices`, or a log layer's `host.layers[i].gc_choices`).
    /// The one check of d; `config::GcPolicyName::policy` builds the others.
    pub fn d_choices(choices: u32, choices_key: &str) -> Result<Self, ConfigError> {
        // Zero candidates would choose nothing while victims exist.
        if choices == 0 {
            return Err(ConfigError::new(choices_key, "must be at least 1"));
        }
        Ok(Self::DChoices { choices })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d_choices_needs_a_candidate_and_names_the_callers_key() {
        let err =
            GcPolicy::d_choices(0, "host.layers[1].gc_choices").expect_err("d = 0 is refused");
        assert_eq!(
            err.to_string(),
            "config key `host.layers[1].gc_choices`: must be at least 1"
        );
        assert_eq!(
            GcPolicy::d_choices(3, "ftl.gc_choices").ok(),
            Some(GcPolicy::DChoices { choices: 3 })
        );
    }
}
