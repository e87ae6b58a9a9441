//! A tiny seeded generator (SplitMix64): the soak's every choice comes from one, so a seed
//! replays the same schedule of operations (the root crate has no `rand`).

/// SplitMix64.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// The generator of `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// An independent stream `n` of `seed` (one per client, one for the faults).
    pub fn stream(seed: u64, n: u64) -> Self {
        Rng(mix(seed ^ mix(n.wrapping_add(0x51_7c_c1_b7))))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next_u64() % n }
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}

/// One SplitMix64 step of `x`: a hash of a number.
pub fn mix(x: u64) -> u64 {
    Rng(x).next_u64()
}
