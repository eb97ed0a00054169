//! The victim policies' keys, checked, and a policy's config name turned
//! into the policy (`segments::GcPolicy`): for the FTL (`[ftl]`) and for
//! each log layer, which take the same keys. d-choices' d is checked at
//! two points of the plan's order (`mod.rs`): that it is at least 1 with
//! the rest of the keys of its section (`GcPolicyName::check_choices`,
//! which a log layer's keys call too), that it is within `MAX_GC_CHOICES`
//! with the other bounds on work, last (here).

use crate::config::bounds::MAX_GC_CHOICES;
use crate::config::{Config, GcPolicyName, LayerConfig};
use crate::error::ConfigError;
use crate::segments::{GcPolicy, PolicyKeys, PolicyKind};

/// The policy of each config name: the list's identifier is the name's.
macro_rules! kind_of_name {
    ($( $(#[$doc:meta])* $kind:ident($module:ident::$policy:ident), )*) => {
        fn kind_of(name: GcPolicyName) -> PolicyKind {
            match name {
                $( GcPolicyName::$kind => PolicyKind::$kind, )*
            }
        }
    };
}
crate::segments::victim_policies!(kind_of_name);

/// The policy `name` with d-choices' d = `choices`, which `choices_key`
/// names in an error (`ftl.gc_choices`, or a log layer's
/// `host.layers[i].gc_choices`); the other policies ignore `choices`.
pub fn gc_policy(
    name: GcPolicyName,
    choices: u32,
    choices_key: &str,
) -> Result<GcPolicy, ConfigError> {
    name.check_choices(choices, choices_key)?;
    Ok(GcPolicy {
        kind: kind_of(name),
        keys: PolicyKeys { choices },
    })
}

/// d of d-choices within `MAX_GC_CHOICES`: the FTL's, then each log
/// layer's from the top.
pub(super) fn check_bounds(cfg: &Config) -> Result<(), ConfigError> {
    let bounded = |name, choices: u32, key: &str| {
        if name == GcPolicyName::DChoices && choices > MAX_GC_CHOICES {
            return Err(ConfigError::new(
                key,
                format!("{choices} is more than {MAX_GC_CHOICES}"),
            ));
        }
        Ok(())
    };
    bounded(cfg.ftl.gc_policy, cfg.ftl.gc_choices, "ftl.gc_choices")?;
    for (i, layer) in cfg.host.layers.iter().enumerate() {
        if let LayerConfig::Log(log) = layer {
            bounded(
                log.gc_policy,
                log.gc_choices,
                &format!("host.layers[{i}].gc_choices"),
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d_choices_needs_a_candidate_and_names_the_callers_key() {
        let err = gc_policy(GcPolicyName::DChoices, 0, "host.layers[1].gc_choices")
            .expect_err("d = 0 is refused");
        assert_eq!(
            err.to_string(),
            "config key `host.layers[1].gc_choices`: must be at least 1"
        );
        assert_eq!(
            gc_policy(GcPolicyName::DChoices, 3, "ftl.gc_choices").ok(),
            Some(GcPolicy {
                kind: PolicyKind::DChoices,
                keys: PolicyKeys { choices: 3 },
            })
        );
        // d only matters to d-choices.
        assert!(gc_policy(GcPolicyName::Greedy, 0, "ftl.gc_choices").is_ok());
    }

    #[test]
    fn d_is_bounded_for_the_ftl_and_for_each_log_layer() {
        let mut cfg = Config::default();
        cfg.ftl.gc_policy = GcPolicyName::DChoices;
        cfg.ftl.gc_choices = MAX_GC_CHOICES;
        assert!(check_bounds(&cfg).is_ok());
        cfg.ftl.gc_choices = MAX_GC_CHOICES + 1;
        assert_eq!(
            check_bounds(&cfg).expect_err("over the bound").to_string(),
            "config key `ftl.gc_choices`: 1025 is more than 1024"
        );
        cfg.ftl.gc_policy = GcPolicyName::Greedy;
        assert!(check_bounds(&cfg).is_ok(), "greedy ignores d");
    }

    #[test]
    fn a_log_layers_d_of_zero_is_refused_by_its_own_key() {
        let mut cfg = Config::default();
        cfg.host.layers = vec![LayerConfig::Log(crate::config::host::log::LogConfig {
            gc_policy: GcPolicyName::DChoices,
            gc_choices: 0,
            ..Default::default()
        })];
        assert_eq!(
            cfg.validate().expect_err("d = 0").to_string(),
            "config key `host.layers[0].gc_choices`: must be at least 1"
        );
    }
}
