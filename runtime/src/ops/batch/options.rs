//! How batch operations split, pace and retry their requests: [`BatchOptions`].

use std::time::Duration;

/// How batch operations split, pace and retry their requests. See [`Table::batch`](crate::table::Table::batch).
///
/// ```
/// use std::time::Duration;
/// use dynamo_entity_runtime::BatchOptions;
///
/// let options = BatchOptions::default()
///     .with_concurrency(8)
///     .with_max_attempts(12)
///     .with_backoff(Duration::from_millis(25), Duration::from_secs(5));
/// assert_eq!(options.concurrency(), 8);
/// assert_eq!(BatchOptions::default().max_attempts(), 8);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchOptions {
    concurrency: usize,
    max_attempts: u32,
    base_delay: Duration,
    max_delay: Duration,
}

impl Default for BatchOptions {
    /// 4 chunks in flight, 8 requests per chunk, backoff from 50 ms up to 2 s.
    fn default() -> Self {
        BatchOptions {
            concurrency: Self::DEFAULT_CONCURRENCY,
            max_attempts: Self::DEFAULT_MAX_ATTEMPTS,
            base_delay: Self::DEFAULT_BASE_DELAY,
            max_delay: Self::DEFAULT_MAX_DELAY,
        }
    }
}

impl BatchOptions {
    /// Chunks in flight at once by default.
    pub const DEFAULT_CONCURRENCY: usize = 4;
    /// Requests per chunk by default: the first one and up to 7 retries.
    pub const DEFAULT_MAX_ATTEMPTS: u32 = 8;
    /// The backoff's base delay by default.
    pub const DEFAULT_BASE_DELAY: Duration = Duration::from_millis(50);
    /// The backoff's largest delay by default.
    pub const DEFAULT_MAX_DELAY: Duration = Duration::from_secs(2);

    /// The defaults (same as [`Default::default`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// At most `n` chunks in flight at once (0 counts as 1).
    #[must_use]
    pub fn with_concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.max(1);
        self
    }

    /// At most `n` requests per chunk, the first one included (0 counts as 1: no retry).
    #[must_use]
    pub fn with_max_attempts(mut self, n: u32) -> Self {
        self.max_attempts = n.max(1);
        self
    }

    /// Before the `n`-th retry of a chunk, wait a random delay between zero and
    /// `min(max, base × 2ⁿ⁻¹)` ("full jitter").
    #[must_use]
    pub fn with_backoff(mut self, base: Duration, max: Duration) -> Self {
        self.base_delay = base;
        self.max_delay = max;
        self
    }

    /// Chunks in flight at once.
    pub fn concurrency(&self) -> usize {
        self.concurrency
    }

    /// Requests per chunk, the first one included.
    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }

    /// The backoff's base delay.
    pub fn base_delay(&self) -> Duration {
        self.base_delay
    }

    /// The backoff's largest delay.
    pub fn max_delay(&self) -> Duration {
        self.max_delay
    }

    /// The delay before the `retry`-th retry (1 for the first).
    pub(super) fn delay(&self, retry: u32) -> Duration {
        let factor = 1u32.checked_shl(retry.saturating_sub(1)).unwrap_or(u32::MAX);
        let ceiling = self.base_delay.saturating_mul(factor).min(self.max_delay);
        let nanos = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX);
        Duration::from_nanos(fastrand::u64(0..=nanos))
    }
}
