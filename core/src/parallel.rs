//! Work spread over every core, results in input order: sessions are
//! independent, and a report must not depend on which finished first.

/// `f` applied to every item on every core. rayon steals work, so one long
/// session does not hold up a core's share of the others, and its threads
/// are started once for the process, not for each batch.
pub fn map_in_order<T: Send, U: Send>(items: Vec<T>, f: impl Fn(T) -> U + Sync) -> Vec<U> {
    use rayon::prelude::*;
    items.into_par_iter().map(&f).collect()
}

/// [`map_in_order`] on the runtime's blocking threads: the task awaiting
/// it goes on meanwhile with whatever else it is joined with (fetching the
/// next batch while this one is read).
pub async fn map_in_order_beside<T, U>(
    items: Vec<T>,
    f: impl Fn(T) -> U + Send + Sync + 'static,
) -> Vec<U>
where
    T: Send + 'static,
    U: Send + 'static,
{
    match tokio::task::spawn_blocking(move || map_in_order(items, f)).await {
        Ok(mapped) => mapped,
        Err(failed) => std::panic::resume_unwind(failed.into_panic()),
    }
}

/// `f` on one of rayon's threads, awaited: one session read while the
/// next one's rows arrive, with as many at once as there are cores.
/// Started at once, not when first awaited.
pub fn spawn_beside<U: Send + 'static>(
    f: impl FnOnce() -> U + Send + 'static,
) -> impl std::future::Future<Output = U> {
    let (done, result) = futures::channel::oneshot::channel();
    rayon::spawn(move || {
        let _ = done.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
    });
    async move {
        match result.await {
            Ok(Ok(value)) => value,
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            Err(_) => unreachable!("rayon runs every job it is given"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{map_in_order, spawn_beside};

    #[test]
    fn keeps_the_input_order() {
        let items: Vec<u64> = (0..1001).collect();
        let doubled = map_in_order(items, |n| {
            // Uneven work, so the threads finish out of order.
            std::thread::sleep(std::time::Duration::from_micros(1000 - n % 1000));
            n * 2
        });
        assert_eq!(doubled, (0..1001).map(|n| n * 2).collect::<Vec<_>>());
    }

    #[test]
    fn a_job_spawned_beside_runs_before_it_is_awaited() {
        let (ran, seen) = std::sync::mpsc::channel();
        let job = spawn_beside(move || ran.send(()).unwrap());
        seen.recv_timeout(std::time::Duration::from_secs(60))
            .expect("the job ran unawaited");
        drop(job);
    }
}
