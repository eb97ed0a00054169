//! One-dimensional k-means (Lloyd's algorithm on sorted values), as
//! PCStream groups its program contexts by log lifetime.

/// Clusters `values` into at most `k` groups; returns each value's group
/// (0 = the group of the smallest values) in the order of `values`.
/// Deterministic: centroids start at the values' quantiles.
pub fn cluster(values: &[f64], k: usize) -> Vec<usize> {
    let n = values.len();
    if n == 0 || k == 0 {
        return vec![0; n];
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]).then(a.cmp(&b)));
    let sorted: Vec<f64> = order.iter().map(|&i| values[i]).collect();
    let mut distinct = sorted.clone();
    distinct.dedup();
    let k = k.min(distinct.len());
    // Prefix sums: the mean of any run of sorted values in O(1).
    let mut prefix = Vec::with_capacity(n + 1);
    prefix.push(0.0);
    for v in &sorted {
        prefix.push(prefix.last().copied().unwrap_or(0.0) + v);
    }
    let mut centroids: Vec<f64> = (0..k)
        .map(|j| distinct[(j * 2 + 1) * distinct.len() / (2 * k)])
        .collect();
    let mut starts = vec![0usize; k + 1];
    for _ in 0..64 {
        // Group j holds the sorted values between the midpoints around its centroid.
        starts[0] = 0;
        for j in 1..k {
            let mid = (centroids[j - 1] + centroids[j]) / 2.0;
            starts[j] = sorted.partition_point(|&v| v < mid).max(starts[j - 1]);
        }
        starts[k] = n;
        let mut moved = false;
        for j in 0..k {
            let (a, b) = (starts[j], starts[j + 1]);
            if b > a {
                let mean = (prefix[b] - prefix[a]) / (b - a) as f64;
                moved |= mean != centroids[j];
                centroids[j] = mean;
            }
        }
        if !moved {
            break;
        }
    }
    let mut group = vec![0; n];
    for j in 0..k {
        for &i in &order[starts[j]..starts[j + 1]] {
            group[i] = j;
        }
    }
    group
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separates_obvious_groups_in_order() {
        let values = [10.0, 1.0, 1.2, 20.0, 10.5, 0.9, 19.0];
        assert_eq!(cluster(&values, 3), [1, 0, 0, 2, 1, 0, 2]);
        // Fewer distinct values than groups: one group each.
        assert_eq!(cluster(&[5.0, 5.0, 1.0], 4), [1, 1, 0]);
        assert_eq!(cluster(&[], 3), Vec::<usize>::new());
    }
}
