//! Percentiles by linear interpolation between closest ranks (SPEC S2).

/// The `p`-th quantile (`0.0..=1.0`) of an ascending slice, interpolated
/// linearly between the closest ranks — numpy's default and Excel's
/// `PERCENTILE.INC`. With an odd length, `p = 0.5` lands exactly on an
/// observed value.
///
/// # Panics
/// Panics on an empty slice; callers check for that once, up front.
pub fn percentile_sorted(sorted: &[f64], p: f64) -> f64 {
    assert!(!sorted.is_empty(), "percentile of an empty sample");
    let h = (sorted.len() - 1) as f64 * p.clamp(0.0, 1.0);
    // `h` is non-negative and below `len`, so the casts cannot wrap.
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    let frac = h - lo as f64;
    if lo == hi || frac == 0.0 { sorted[lo] } else { sorted[lo] + frac * (sorted[hi] - sorted[lo]) }
}

/// The median of an unsorted slice, reordering it in place.
///
/// Uses selection (O(n)) rather than a sort, because drift needs the medians
/// of both halves of a million-trial run and a sort of each would dominate.
/// Returns `None` for an empty slice.
pub fn median_of(values: &mut [f64]) -> Option<f64> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    let mid = n / 2;
    let (left, upper, _) = values.select_nth_unstable_by(mid, f64::total_cmp);
    let upper = *upper;
    if n % 2 == 1 {
        return Some(upper);
    }
    // Even length: the lower middle is the largest value left of `mid`.
    let lower = left.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some(lower + 0.5 * (upper - lower))
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC S2: the same values numpy.percentile gives for these inputs.
    #[test]
    fn interpolates_between_closest_ranks() {
        let s = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile_sorted(&s, 0.25), 1.75);
        assert_eq!(percentile_sorted(&s, 0.5), 2.5);
        assert_eq!(percentile_sorted(&s, 0.75), 3.25);
        assert_eq!(percentile_sorted(&s, 0.0), 1.0);
        assert_eq!(percentile_sorted(&s, 1.0), 4.0);
        assert_eq!(percentile_sorted(&[7.0], 0.3), 7.0);
    }

    #[test]
    fn median_of_handles_odd_even_and_empty() {
        assert_eq!(median_of(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median_of(&mut [4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median_of(&mut []), None);
    }
}
