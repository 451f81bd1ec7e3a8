//! Python's `difflib.SequenceMatcher(None, a, b).ratio()`, autojunk included:
//! when `b` has 200 or more items, items making up more than 1% of it are
//! "popular" and cannot start a match (they can still extend one).

use std::collections::HashMap;
use std::hash::Hash;

/// `2 * matches / (len(a) + len(b))`, and 1.0 for two empty sequences.
pub fn ratio<T: Eq + Hash>(a: &[T], b: &[T]) -> f64 {
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    2.0 * matching_items(a, b) as f64 / total as f64
}

/// The number of items in `get_matching_blocks()`.
fn matching_items<T: Eq + Hash>(a: &[T], b: &[T]) -> usize {
    let mut b2j: HashMap<&T, Vec<usize>> = HashMap::new();
    for (j, item) in b.iter().enumerate() {
        b2j.entry(item).or_default().push(j);
    }
    if b.len() >= 200 {
        let limit = b.len() / 100 + 1;
        b2j.retain(|_, positions| positions.len() <= limit);
    }
    let mut matched = 0;
    let mut queue = vec![(0, a.len(), 0, b.len())];
    while let Some((alo, ahi, blo, bhi)) = queue.pop() {
        let (i, j, k) = longest_match(a, b, &b2j, alo, ahi, blo, bhi);
        if k > 0 {
            matched += k;
            if alo < i && blo < j {
                queue.push((alo, i, blo, j));
            }
            if i + k < ahi && j + k < bhi {
                queue.push((i + k, ahi, j + k, bhi));
            }
        }
    }
    matched
}

/// `find_longest_match`: the longest block (earliest in `a`, then in `b`)
/// starting on a non-popular item, then extended by equal items either side.
fn longest_match<T: Eq + Hash>(
    a: &[T],
    b: &[T],
    b2j: &HashMap<&T, Vec<usize>>,
    alo: usize,
    ahi: usize,
    blo: usize,
    bhi: usize,
) -> (usize, usize, usize) {
    let (mut best_i, mut best_j, mut best_size) = (alo, blo, 0);
    let mut lengths: HashMap<usize, usize> = HashMap::new();
    for (i, item) in a.iter().enumerate().take(ahi).skip(alo) {
        let mut next: HashMap<usize, usize> = HashMap::new();
        for &j in b2j.get(item).map(Vec::as_slice).unwrap_or(&[]) {
            if j < blo {
                continue;
            }
            if j >= bhi {
                break;
            }
            let k = lengths.get(&j.wrapping_sub(1)).copied().unwrap_or(0) + 1;
            next.insert(j, k);
            if k > best_size {
                best_i = i + 1 - k;
                best_j = j + 1 - k;
                best_size = k;
            }
        }
        lengths = next;
    }
    while best_i > alo && best_j > blo && a[best_i - 1] == b[best_j - 1] {
        best_i -= 1;
        best_j -= 1;
        best_size += 1;
    }
    while best_i + best_size < ahi
        && best_j + best_size < bhi
        && a[best_i + best_size] == b[best_j + best_size]
    {
        best_size += 1;
    }
    (best_i, best_j, best_size)
}

#[cfg(test)]
mod tests {
    use super::ratio;

    #[test]
    fn ratios_match_python() {
        assert_eq!(ratio::<&str>(&[], &[]), 1.0);
        assert_eq!(ratio(&["a"], &[]), 0.0);
        assert_eq!(ratio(&["a", "b", "c"], &["a", "b", "c"]), 1.0);
        // difflib.SequenceMatcher(None, "abcd", "bcde").ratio() == 0.75
        assert_eq!(ratio(&['a', 'b', 'c', 'd'], &['b', 'c', 'd', 'e']), 0.75);
    }

    #[test]
    fn popular_items_cannot_start_a_match_past_200() {
        // b: 300 items, all of them popular (>1% each), so no match can
        // start anywhere. Python still finds one when the empty match at the
        // block start extends into equal items: x against x... gives 2/301,
        // x against y...x gives 0.
        let mut b = vec!["x"; 100];
        b.extend(std::iter::repeat_n("y", 200));
        assert_eq!(ratio(&["x"], &b), 2.0 / 301.0);
        b.reverse();
        assert_eq!(ratio(&["x"], &b), 0.0);
        assert_eq!(ratio(&["x"], &b[..150]), 0.0);
        assert_eq!(ratio(&["y"], &b[..150]), 2.0 / 151.0);
    }
}
