//! A small deterministic random source: SplitMix64 to seed, xoshiro256++ to draw.
//!
//! Every stream is keyed by (seed, equipment, purpose), so adding a point or an equipment never
//! shifts the numbers another one sees.

/// One SplitMix64 step: used to expand a 64-bit key into well-mixed state words.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a over bytes: a stable (platform- and release-independent) string hash for stream keys.
pub fn fnv1a(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

/// xoshiro256++ generator with a cached second normal deviate.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
    spare: Option<f64>,
}

impl Rng {
    /// A stream for `(seed, who, what)`.
    pub fn stream(seed: u64, who: &str, what: &str) -> Rng {
        let mut k = seed ^ fnv1a(who).rotate_left(17) ^ fnv1a(what).rotate_left(41);
        let mut s = [0u64; 4];
        for w in s.iter_mut() {
            *w = splitmix64(&mut k);
        }
        Rng { s, spare: None }
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// Uniform integer in [0, n).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() >> 32) * n) >> 32
    }

    /// Standard normal deviate (polar Box-Muller; the second value is kept for the next call).
    pub fn normal(&mut self) -> f64 {
        if let Some(v) = self.spare.take() {
            return v;
        }
        loop {
            let u = 2.0 * self.uniform() - 1.0;
            let v = 2.0 * self.uniform() - 1.0;
            let s = u * u + v * v;
            if s > 0.0 && s < 1.0 {
                let m = (-2.0 * s.ln() / s).sqrt();
                self.spare = Some(v * m);
                return u * m;
            }
        }
    }
}

/// A first-order autoregressive (red) noise with a given standard deviation and correlation
/// time, whose statistics do not depend on the simulation step.
#[derive(Clone, Debug)]
pub struct Ar1 {
    x: f64,
    phi: f64,
    innov: f64,
}

impl Ar1 {
    /// `sigma` in the signal's unit, `tau_min` and `dt_min` in minutes.
    pub fn new(sigma: f64, tau_min: f64, dt_min: f64, rng: &mut Rng) -> Ar1 {
        let phi = (-dt_min / tau_min).exp();
        Ar1 { x: sigma * rng.normal(), phi, innov: sigma * (1.0 - phi * phi).sqrt() }
    }

    /// Advance one step and return the new value.
    pub fn step(&mut self, rng: &mut Rng) -> f64 {
        self.x = self.phi * self.x + self.innov * rng.normal();
        self.x
    }
}
