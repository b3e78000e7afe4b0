//! Stage: two profiles' deltas → evidence. A change of share measured on a handful of
//! samples is noise; the same change over thousands is a finding. Each delta is judged by a
//! two-proportion z-test on *sample counts* — the function's samples on each side against
//! that side's samples — whatever the weights are (nanoseconds, cycles, bytes): weights say
//! how much, only the number of samples says how sure.
//!
//! The test: with `k₁` of `n₁` samples before and `k₂` of `n₂` after, the pooled share is
//! `p = (k₁ + k₂) / (n₁ + n₂)`, the standard error `√(p (1 − p) (1/n₁ + 1/n₂))` and
//! `z = (k₂/n₂ − k₁/n₁) / se`; the two-sided p-value is `erfc(|z| / √2)`. A delta is a
//! finding ([`Evidence::Finding`], marked `*`) when `p <` [`ALPHA`] and the normal
//! approximation holds (Cochran's rule: at least [`MIN_EXPECTED`] expected samples in and
//! out of the function on each side); else it is not told from noise ([`Evidence::Noise`],
//! marked `~`). A side of fewer than 10 samples never passes the rule, so it is always `~`.

use super::diff::{Delta, FunctionDelta};
use super::scope::ON_CPU;
use super::{NodeId, Profile, Unit};
use crate::text::thousands;

/// The p-value below which a delta is a finding. Strict, because a comparison tests every
/// function at once: at 0.01, about one unchanged function in a hundred is still marked.
pub const ALPHA: f64 = 0.01;

/// Fewer samples than this on a side get a warning: each sample is then at least a
/// percentage point of that side, and a share of 50% is known only to about ±10 pp (95%).
pub const SMALL_SIDE: u64 = 100;

/// Cochran's rule for the normal approximation: expected samples in and out of the
/// function, on each side, of at least this many.
pub const MIN_EXPECTED: f64 = 5.0;

/// The mark of a finding.
pub const FINDING_MARK: char = '*';

/// The mark of a delta not told from noise.
pub const NOISE_MARK: char = '~';

/// Whether a delta is a finding or not told from noise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    /// p < [`ALPHA`], on enough samples.
    Finding,
    /// Anything else: p ≥ [`ALPHA`], too few samples, or nothing to test.
    Noise,
}

impl Evidence {
    /// `*` for a finding, `~` for noise.
    pub fn mark(self) -> char {
        match self {
            Evidence::Finding => FINDING_MARK,
            Evidence::Noise => NOISE_MARK,
        }
    }
}

/// The outcome of the test on one delta.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdict {
    /// The z statistic (AFTER − BEFORE), when the pooled share is neither 0 nor 1.
    pub z: Option<f64>,
    /// Its two-sided p-value.
    pub p: Option<f64>,
    /// Finding or noise.
    pub evidence: Evidence,
}

/// The z statistic of `hits[i]` of `totals[i]` samples on the two sides (positive when the
/// share grew); `None` when a side has no samples or the pooled share is 0 or 1 (no
/// variance: nothing to test).
pub fn z_score(hits: [u64; 2], totals: [u64; 2]) -> Option<f64> {
    if totals.contains(&0) || hits[0] > totals[0] || hits[1] > totals[1] {
        return None;
    }
    #[allow(clippy::cast_precision_loss)] // counts far below 2^52
    let [k1, k2, n1, n2] = [hits[0], hits[1], totals[0], totals[1]].map(|v| v as f64);
    let pooled = (k1 + k2) / (n1 + n2);
    let se = (pooled * (1.0 - pooled) * (1.0 / n1 + 1.0 / n2)).sqrt();
    (se > 0.0).then(|| (k2 / n2 - k1 / n1) / se)
}

/// The two-sided p-value of a standard normal `z`.
pub fn p_value(z: f64) -> f64 {
    erfc(z.abs() / std::f64::consts::SQRT_2).clamp(0.0, 1.0)
}

/// The complementary error function (Numerical Recipes' `erfcc`, Chebyshev fit; relative
/// error below 1.2 × 10⁻⁷ everywhere).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

/// Whether the normal approximation holds: at least [`MIN_EXPECTED`] samples expected in
/// and out of the function on each side, at the pooled share.
fn approximation_holds(hits: [u64; 2], totals: [u64; 2]) -> bool {
    #[allow(clippy::cast_precision_loss)] // counts far below 2^52
    let pooled = (hits[0] + hits[1]) as f64 / (totals[0] + totals[1]).max(1) as f64;
    totals.iter().all(|&n| {
        #[allow(clippy::cast_precision_loss)]
        let n = n as f64;
        n * pooled >= MIN_EXPECTED && n * (1.0 - pooled) >= MIN_EXPECTED
    })
}

/// Judges `hits[i]` of `totals[i]` samples on the two sides.
pub fn judge(hits: [u64; 2], totals: [u64; 2]) -> Verdict {
    let z = z_score(hits, totals);
    let p = z.map(p_value);
    let finding = p.is_some_and(|p| p < ALPHA) && approximation_holds(hits, totals);
    Verdict {
        z,
        p,
        evidence: if finding {
            Evidence::Finding
        } else {
            Evidence::Noise
        },
    }
}

/// Whether the weights of `profile` (of `half`, for on/off-CPU profiles) are themselves
/// sample counts: folded counts, SystemTap's on-CPU half, pprof's `samples` metric. Else
/// (times, event periods, bytes, fractional counts) the tree's own sample counts are used.
pub fn weights_count_samples(profile: &Profile, half: Option<&str>) -> bool {
    profile.tree.scale() == 0
        && match &profile.stats.unit {
            Unit::Samples => true,
            Unit::OnOffCpu => half == Some(ON_CPU),
            Unit::Metric { name, unit } => name == "samples" && unit == "count",
            Unit::Nanoseconds | Unit::Events(_) => false,
        }
}

/// The samples `(hits, totals)` of a delta on the two sides, from its weights where
/// `weights_count[i]` (see [`weights_count_samples`]), else from its sample counts.
pub fn counts(delta: &Delta, weights_count: [bool; 2]) -> ([u64; 2], [u64; 2]) {
    let weights = [[delta.before, delta.after], delta.base];
    let samples = [delta.samples, delta.sample_base];
    let pick = |i: usize| {
        if weights_count[i] {
            (weights[0][i], weights[1][i])
        } else {
            (samples[0][i], samples[1][i])
        }
    };
    let ((k1, n1), (k2, n2)) = (pick(0), pick(1));
    ([k1, k2], [n1, n2])
}

/// Judges one row of the delta table of `before` and `after`.
pub fn judge_row(before: &Profile, after: &Profile, row: &FunctionDelta) -> Verdict {
    let (hits, totals) = counts(&row.delta, row_counting(before, after, row));
    judge(hits, totals)
}

/// The samples `(hits, totals)` of one row of the delta table, as [`judge_row`] tests them.
pub fn row_counts(before: &Profile, after: &Profile, row: &FunctionDelta) -> ([u64; 2], [u64; 2]) {
    counts(&row.delta, row_counting(before, after, row))
}

fn row_counting(before: &Profile, after: &Profile, row: &FunctionDelta) -> [bool; 2] {
    [before, after].map(|p| weights_count_samples(p, row.half))
}

/// The number of samples of a whole profile, counted as the tests count them (the halves
/// of an on/off-CPU profile each by its own rule).
pub fn sample_total(profile: &Profile) -> u64 {
    let tree = &profile.tree;
    let count = |node: NodeId, half: Option<&str>| {
        if weights_count_samples(profile, half) {
            tree.node(node).total
        } else {
            tree.node(node).samples
        }
    };
    if profile.stats.unit == Unit::OnOffCpu && super::scope::is_halved(tree) {
        tree.children(NodeId::ROOT)
            .map(|h| count(h, Some(tree.name(h))))
            .fold(0u64, u64::saturating_add)
    } else {
        count(NodeId::ROOT, None)
    }
}

/// The samples a verdict weighed and what it found, as the status line says it (the mark
/// goes beside the Δ): `samples 3,000/7,000 → 0/5,400: p < 0.001`; `…: too few to tell`
/// when the normal approximation does not hold, `…: nothing to test` when both shares are
/// 0% or 100%.
pub fn verdict_text(v: &Verdict, hits: [u64; 2], totals: [u64; 2]) -> String {
    let why = match v.p {
        None => "nothing to test".to_owned(),
        _ if !approximation_holds(hits, totals) => "too few to tell".to_owned(),
        Some(p) if p < 0.001 => "p < 0.001".to_owned(),
        Some(p) => format!("p = {p:.3}"),
    };
    format!(
        "samples {}/{} → {}/{}: {why}",
        thousands(hits[0]),
        thousands(totals[0]),
        thousands(hits[1]),
        thousands(totals[1])
    )
}

/// The side labels (`BEFORE`, `AFTER`) of the sides with fewer than [`SMALL_SIDE`] samples,
/// with their counts.
pub fn small_sides(totals: [u64; 2]) -> Vec<(&'static str, u64)> {
    ["BEFORE", "AFTER"]
        .into_iter()
        .zip(totals)
        .filter(|&(_, n)| n < SMALL_SIDE)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_z_and_p() {
        // 45 of 100 → 60 of 100: pooled p = 105/200 = 0.525,
        // se = √(0.525 · 0.475 · (1/100 + 1/100)) = √0.0049875 = 0.0706222,
        // z = 0.15 / 0.0706222 = 2.12398, two-sided p = 0.03367.
        let z = z_score([45, 60], [100, 100]).unwrap();
        assert!((z - 2.123_977).abs() < 1e-5, "{z}");
        assert!((p_value(z) - 0.033_672).abs() < 1e-5, "{}", p_value(z));
        // Shrinking gives the same size, negative.
        assert!((z_score([60, 45], [100, 100]).unwrap() + z).abs() < 1e-12);
        // Significant at 0.05, not at ALPHA = 0.01.
        assert_eq!(judge([45, 60], [100, 100]).evidence, Evidence::Noise);
    }

    #[test]
    fn p_values_of_known_quantiles() {
        assert!((p_value(0.0) - 1.0).abs() < 1e-6);
        assert!((p_value(1.959_964) - 0.05).abs() < 1e-6);
        assert!((p_value(-2.575_829) - 0.01).abs() < 1e-6);
        assert!(p_value(40.0) < 1e-12);
    }

    #[test]
    fn a_six_sample_side_is_noise() {
        // The case that prompted the test: +55.7 pp where AFTER held 6 samples. The
        // z statistic alone is large; Cochran's rule still refuses it.
        let v = judge([1_114, 4], [10_000, 6]);
        assert!(v.z.unwrap() > 2.6, "{v:?}");
        assert_eq!(v.evidence, Evidence::Noise);
        assert_eq!(v.evidence.mark(), '~');
        // Every split of 6 samples is noise, against any BEFORE.
        for k in 0..=6 {
            for (b, n) in [(0, 10_000), (5_000, 10_000), (3, 6)] {
                assert_eq!(judge([b, k], [n, 6]).evidence, Evidence::Noise, "{b} {k}");
            }
        }
    }

    #[test]
    fn a_shift_over_ten_thousand_samples_is_a_finding() {
        // 30% → 35% of 10,000 samples each: z = 0.05 / √(0.325 · 0.675 · 2/10⁴) = 7.5485.
        let v = judge([3_000, 3_500], [10_000, 10_000]);
        assert!((v.z.unwrap() - 7.548_514).abs() < 1e-5, "{v:?}");
        assert!(v.p.unwrap() < 1e-12);
        assert_eq!(v.evidence, Evidence::Finding);
        assert_eq!(v.evidence.mark(), '*');
        // The same 5 pp over 100 samples each is noise.
        assert_eq!(judge([30, 35], [100, 100]).evidence, Evidence::Noise);
    }

    #[test]
    fn nothing_to_test() {
        assert_eq!(z_score([0, 0], [100, 100]), None);
        assert_eq!(z_score([100, 50], [100, 50]), None);
        assert_eq!(z_score([0, 1], [0, 10]), None);
        assert_eq!(z_score([5, 1], [4, 10]), None);
        assert_eq!(judge([0, 0], [0, 0]).evidence, Evidence::Noise);
    }

    #[test]
    fn counts_from_weights_or_samples() {
        // 3 of 10 samples weighing 300 of 1,000 ns before; 6 of 6 weighing 60 of 60 after.
        let d = Delta::of([300, 60], [0, 0], [1_000, 60]).with_samples([3, 6], [10, 6]);
        assert_eq!(counts(&d, [false, false]), ([3, 6], [10, 6]));
        assert_eq!(counts(&d, [true, false]), ([300, 6], [1_000, 6]));
        assert_eq!(small_sides([10, 6_000]), [("BEFORE", 10)]);
        assert!(small_sides([100, 100]).is_empty());
    }

    #[test]
    fn verdict_texts() {
        let text = |h, t| verdict_text(&judge(h, t), h, t);
        assert_eq!(
            text([3_000, 3_500], [10_000, 10_000]),
            "samples 3,000/10,000 → 3,500/10,000: p < 0.001"
        );
        assert_eq!(
            text([45, 60], [100, 100]),
            "samples 45/100 → 60/100: p = 0.034"
        );
        assert_eq!(
            text([1_114, 4], [10_000, 6]),
            "samples 1,114/10,000 → 4/6: too few to tell"
        );
        assert_eq!(text([6, 4], [6, 4]), "samples 6/6 → 4/4: nothing to test");
    }
}
