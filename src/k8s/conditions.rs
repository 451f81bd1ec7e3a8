//! Status conditions, merged the way Stackable's operator-rs merges them:
//! a condition's `lastTransitionTime` moves only when its status changes,
//! so alerts and `kubectl wait` see real transitions, not every rewrite.

use crate::k8s::vocabulary::{ConditionType, Reason};
use jiff::Timestamp;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};

/// A condition as a reconciler wants it now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Want {
    pub type_: ConditionType,
    pub status: bool,
    pub reason: Reason,
    pub message: String,
}

/// Replace or add `want` in `existing`, keeping the others.
pub fn merge(
    existing: &[Condition],
    wants: &[Want],
    generation: Option<i64>,
    now: Timestamp,
) -> Vec<Condition> {
    let mut merged: Vec<Condition> = existing.to_vec();
    for want in wants {
        let status = if want.status { "True" } else { "False" }.to_string();
        let type_ = want.type_.as_str();
        let transition = match existing.iter().find(|c| c.type_ == type_) {
            Some(old) if old.status == status => old.last_transition_time.clone(),
            _ => Time(now),
        };
        let condition = Condition {
            type_: type_.to_string(),
            status,
            reason: want.reason.as_str().to_string(),
            message: want.message.clone(),
            observed_generation: generation,
            last_transition_time: transition,
        };
        match merged.iter_mut().find(|c| c.type_ == type_) {
            Some(slot) => *slot = condition,
            None => merged.push(condition),
        }
    }
    merged
}

/// The condition of this type, if set.
pub fn find(conditions: &[Condition], type_: ConditionType) -> Option<&Condition> {
    conditions.iter().find(|c| c.type_ == type_.as_str())
}

/// Whether the condition of this type is True.
pub fn is_true(conditions: &[Condition], type_: ConditionType) -> bool {
    find(conditions, type_).is_some_and(|c| c.status == "True")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::vocabulary::Failure;

    fn want(status: bool, reason: Reason) -> Want {
        Want {
            type_: ConditionType::Ready,
            status,
            reason,
            message: reason.as_str().to_lowercase(),
        }
    }

    #[test]
    fn transition_time_moves_only_when_the_status_changes() {
        let t0: Timestamp = "2026-12-01T00:00:00Z".parse().unwrap();
        let t1: Timestamp = "2026-12-01T01:00:00Z".parse().unwrap();
        let t2: Timestamp = "2026-12-01T02:00:00Z".parse().unwrap();
        let first = merge(&[], &[want(true, Reason::Ready)], Some(1), t0);
        assert_eq!(first[0].last_transition_time, Time(t0));
        let same = merge(&first, &[want(true, Reason::Scheduled)], Some(2), t1);
        assert_eq!(
            same[0].last_transition_time,
            Time(t0),
            "same status keeps its time"
        );
        assert_eq!(same[0].reason, "Scheduled");
        assert_eq!(same[0].observed_generation, Some(2));
        let changed = merge(
            &same,
            &[want(false, Reason::Failure(Failure::InvalidSpec))],
            Some(3),
            t2,
        );
        assert_eq!(changed[0].last_transition_time, Time(t2));
        assert!(!is_true(&changed, ConditionType::Ready));
    }

    #[test]
    fn other_conditions_are_kept() {
        let t0: Timestamp = "2026-12-01T00:00:00Z".parse().unwrap();
        let both = merge(
            &[],
            &[
                want(true, Reason::Ready),
                Want {
                    type_: ConditionType::LastRunPassed,
                    status: false,
                    reason: Reason::Failed,
                    message: String::new(),
                },
            ],
            None,
            t0,
        );
        let ready_only = merge(
            &both,
            &[want(false, Reason::Failure(Failure::InvalidSpec))],
            None,
            t0,
        );
        assert_eq!(ready_only.len(), 2);
        assert!(ready_only.iter().any(|c| c.type_ == "LastRunPassed"));
    }
}
