//! Leadership this replica can prove. The lease manager says when this
//! replica took or lost the Lease, but while the API server is out of its
//! reach it goes on saying "leader" although its renewals fail, and a
//! standby may take the expired Lease meanwhile. So a replica acts only
//! while the Lease, as it last read it, names it holder and cannot have
//! expired: a margin before the expiry its own renewal wrote, it stops
//! creating or writing anything and says so, until a fresh read proves it
//! again.

use jiff::{SignedDuration, Timestamp};
use k8s_openapi::api::coordination::v1::Lease;
use kube::Api;
use std::time::Duration;
use tokio::sync::watch;

/// Until when `lease`, as read, proves that `identity` leads: the expiry
/// of its last renewal, less `margin`. `None` when it names another
/// holder, or lacks the times to tell.
pub fn proven_until(identity: &str, lease: &Lease, margin: SignedDuration) -> Option<Timestamp> {
    let spec = lease.spec.as_ref()?;
    if spec.holder_identity.as_deref() != Some(identity) {
        return None;
    }
    let renewed = spec.renew_time.as_ref()?.0;
    let duration = SignedDuration::from_secs(spec.lease_duration_seconds?.into());
    Some(renewed + duration - margin)
}

/// How this replica holds and proves the Lease.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// Seconds before expiry the manager renews: half the Lease, so that a
    /// renewal is seen long before the proof lapses.
    pub grace_seconds: u64,
    /// How long before the Lease's expiry the replica stops acting: an
    /// eighth of the Lease, at least half a second.
    pub margin: SignedDuration,
    /// The pause between reads of the Lease: half the margin.
    pub every: Duration,
}

impl Timing {
    pub fn of(lease_seconds: u64) -> Timing {
        let margin = Duration::from_millis((lease_seconds * 1000 / 8).max(500));
        Timing {
            grace_seconds: (lease_seconds / 2).max(1),
            margin: SignedDuration::try_from(margin).unwrap_or(SignedDuration::ZERO),
            every: margin / 2,
        }
    }
}

/// Keep `proven` saying whether this replica can prove it leads: while the
/// manager says it holds the Lease (`held`), read the Lease every so often
/// and extend the proof; a read that fails extends nothing.
pub async fn prove(
    leases: Api<Lease>,
    lease_name: String,
    identity: String,
    lease_seconds: u64,
    mut held: watch::Receiver<bool>,
    proven: watch::Sender<bool>,
) {
    let Timing { margin, every, .. } = Timing::of(lease_seconds);
    let mut until: Option<Timestamp> = None;
    loop {
        let holds = *held.borrow_and_update();
        if !holds {
            until = None;
        } else {
            match leases.get_opt(&lease_name).await {
                Ok(Some(lease)) => until = proven_until(&identity, &lease, margin),
                Ok(None) => until = None,
                // Out of reach: what was proven stays proven until it lapses.
                Err(_) => {}
            }
        }
        let now = Timestamp::now();
        let is_proven = holds && until.is_some_and(|u| now < u);
        proven.send_if_modified(|was| {
            if *was == is_proven {
                return false;
            }
            if holds && !is_proven {
                tracing::warn!(
                    %identity,
                    expires = ?until,
                    "cannot prove this replica still holds the Lease (its renewal is not seen): it stops creating and writing objects until it can"
                );
            }
            *was = is_proven;
            true
        });
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            changed = held.changed() => if changed.is_err() { return },
            () = proven.closed() => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::coordination::v1::LeaseSpec;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;

    fn lease(holder: &str, renewed: &str, seconds: i32) -> Lease {
        Lease {
            spec: Some(LeaseSpec {
                holder_identity: Some(holder.into()),
                renew_time: Some(MicroTime(renewed.parse().unwrap())),
                lease_duration_seconds: Some(seconds),
                ..LeaseSpec::default()
            }),
            ..Lease::default()
        }
    }

    #[test]
    fn a_lease_proves_its_holder_until_a_margin_before_it_expires() {
        let timing = Timing::of(15);
        assert_eq!(timing.grace_seconds, 7);
        assert_eq!(timing.margin, SignedDuration::from_millis(1875));
        let until = proven_until("a", &lease("a", "2026-12-07T10:00:00Z", 15), timing.margin);
        assert_eq!(until, Some("2026-12-07T10:00:13.125Z".parse().unwrap()));
        assert_eq!(
            proven_until("a", &lease("b", "2026-12-07T10:00:00Z", 15), timing.margin),
            None,
            "another holder proves nothing"
        );
        assert_eq!(proven_until("a", &Lease::default(), timing.margin), None);
    }

    #[test]
    fn a_renewal_is_read_well_before_the_proof_lapses() {
        for lease_seconds in [3, 4, 15, 60] {
            let timing = Timing::of(lease_seconds);
            assert!(timing.grace_seconds < lease_seconds, "{timing:?}");
            // The manager renews `grace` before expiry; the proof lapses
            // `margin` before it: several reads fit between the two.
            let window = Duration::from_secs(timing.grace_seconds)
                - Duration::try_from(timing.margin).unwrap();
            assert!(window >= timing.every * 2, "{lease_seconds}: {timing:?}");
        }
    }
}
