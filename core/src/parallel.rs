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

#[cfg(test)]
mod tests {
    use super::map_in_order;

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
}
