//! Bounded requests: the operation and attempt timeouts every request of a [`Table`] carries.
//!
//! The SDK's own default is only a 3.1 s *connect* timeout. A server that accepts the
//! connection and then never answers (a stopped process, a stalled proxy) would leave every
//! call pending forever. So a [`Table`] makes sure each request has both
//!
//! - an **operation timeout** ([`Timeouts::DEFAULT_OPERATION`], 30 s): the whole call, the SDK's
//!   retries and their backoff included;
//! - an **attempt timeout** ([`Timeouts::DEFAULT_ATTEMPT`], 10 s): one HTTP attempt, after which
//!   the SDK's retry strategy (still on) tries again while the operation timeout allows.
//!
//! [`Table::new`] applies these defaults only when the client's configuration sets neither an
//! operation nor an attempt timeout: a client built with its own `TimeoutConfig` is used as
//! it is. [`Table::with_timeouts`] sets them whatever the client says. Connect and read
//! timeouts of the client are kept either way. A call that runs out of time fails with
//! [`Error::Sdk`](crate::Error::Sdk) (a timeout error of the SDK); a batch reports its keys as
//! described in [`Batch`](crate::Batch).
//!
//! [`Table`]: crate::Table
//! [`Table::new`]: crate::Table::new
//! [`Table::with_timeouts`]: crate::Table::with_timeouts

use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::timeout::TimeoutConfig;

/// The operation and attempt timeouts of a [`Table`](crate::Table)'s requests.
///
/// ```
/// use std::time::Duration;
/// use dynamo_entity_runtime::Timeouts;
///
/// let t = Timeouts::default().with_operation(Duration::from_secs(5)).with_attempt(Duration::from_secs(2));
/// assert_eq!(t.operation(), Duration::from_secs(5));
/// assert_eq!(Timeouts::default().attempt(), Timeouts::DEFAULT_ATTEMPT);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    operation: Duration,
    attempt: Duration,
}

impl Default for Timeouts {
    /// [`Timeouts::DEFAULT_OPERATION`] and [`Timeouts::DEFAULT_ATTEMPT`].
    fn default() -> Self {
        Timeouts { operation: Self::DEFAULT_OPERATION, attempt: Self::DEFAULT_ATTEMPT }
    }
}

impl Timeouts {
    /// The whole call, retries included, by default: 30 s.
    pub const DEFAULT_OPERATION: Duration = Duration::from_secs(30);
    /// One HTTP attempt by default: 10 s.
    pub const DEFAULT_ATTEMPT: Duration = Duration::from_secs(10);

    /// `operation` for the whole call (retries included), `attempt` for each HTTP attempt.
    pub fn new(operation: Duration, attempt: Duration) -> Self {
        Timeouts { operation, attempt }
    }

    /// The whole call, the SDK's retries included.
    #[must_use]
    pub fn with_operation(mut self, operation: Duration) -> Self {
        self.operation = operation;
        self
    }

    /// One HTTP attempt.
    #[must_use]
    pub fn with_attempt(mut self, attempt: Duration) -> Self {
        self.attempt = attempt;
        self
    }

    /// The operation timeout.
    pub fn operation(&self) -> Duration {
        self.operation
    }

    /// The attempt timeout.
    pub fn attempt(&self) -> Duration {
        self.attempt
    }

    /// `config` with these operation and attempt timeouts, its other timeouts kept.
    pub(crate) fn apply_to(self, config: Option<&TimeoutConfig>) -> TimeoutConfig {
        let mut builder = config.map_or_else(TimeoutConfig::builder, TimeoutConfig::to_builder);
        builder.set_operation_timeout(Some(self.operation));
        builder.set_operation_attempt_timeout(Some(self.attempt));
        builder.build()
    }

    /// The client's own operation and attempt timeouts, if it sets either.
    pub(crate) fn of_client(client: &Client) -> Option<(Option<Duration>, Option<Duration>)> {
        let config = client.config().timeout_config()?;
        let own = (config.operation_timeout(), config.operation_attempt_timeout());
        (own.0.is_some() || own.1.is_some()).then_some(own)
    }

    /// `client` with these timeouts (a client sharing its HTTP client, interceptors and the rest).
    pub(crate) fn client_with(self, client: &Client) -> Client {
        let config = client.config();
        let timeouts = self.apply_to(config.timeout_config());
        Client::from_conf(config.to_builder().timeout_config(timeouts).build())
    }

    /// `client` as a [`Table`](crate::Table) uses it by default: unchanged if it sets an
    /// operation or attempt timeout of its own, else with the default timeouts.
    pub(crate) fn bounded(client: Client) -> Client {
        match Self::of_client(&client) {
            Some(_) => client,
            None => Timeouts::default().client_with(&client),
        }
    }
}

/// The DynamoDB Streams client as a [`StreamReader`](crate::stream::StreamReader) uses it: the
/// same rule as [`Timeouts::bounded`], so that no read of a stream waits forever.
#[cfg(feature = "streams")]
pub(crate) fn bounded_streams(client: aws_sdk_dynamodbstreams::Client) -> aws_sdk_dynamodbstreams::Client {
    let config = client.config();
    let own = config
        .timeout_config()
        .is_some_and(|t| t.operation_timeout().is_some() || t.operation_attempt_timeout().is_some());
    if own {
        return client;
    }
    streams_with(&client, Timeouts::default())
}

/// `client` with `timeouts` (see [`Timeouts::client_with`]).
#[cfg(feature = "streams")]
pub(crate) fn streams_with(
    client: &aws_sdk_dynamodbstreams::Client,
    timeouts: Timeouts,
) -> aws_sdk_dynamodbstreams::Client {
    let config = client.config();
    let t = timeouts.apply_to(config.timeout_config());
    aws_sdk_dynamodbstreams::Client::from_conf(config.to_builder().timeout_config(t).build())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(timeouts: Option<TimeoutConfig>) -> Client {
        let mut config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
            .region(aws_sdk_dynamodb::config::Region::new("us-east-1"));
        if let Some(t) = timeouts {
            config = config.timeout_config(t);
        }
        Client::from_conf(config.build())
    }

    #[test]
    fn a_client_without_timeouts_gets_the_defaults() {
        let c = Timeouts::bounded(client(None));
        let t = c.config().timeout_config().unwrap();
        assert_eq!(t.operation_timeout(), Some(Timeouts::DEFAULT_OPERATION));
        assert_eq!(t.operation_attempt_timeout(), Some(Timeouts::DEFAULT_ATTEMPT));
    }

    #[test]
    fn a_connect_timeout_alone_is_kept_and_completed() {
        let connect = TimeoutConfig::builder().connect_timeout(Duration::from_millis(3100)).build();
        let c = Timeouts::bounded(client(Some(connect)));
        let t = c.config().timeout_config().unwrap();
        assert_eq!(t.connect_timeout(), Some(Duration::from_millis(3100)));
        assert_eq!(t.operation_timeout(), Some(Timeouts::DEFAULT_OPERATION));
        assert_eq!(t.operation_attempt_timeout(), Some(Timeouts::DEFAULT_ATTEMPT));
    }

    #[test]
    fn a_client_with_its_own_timeout_is_left_alone() {
        let own = TimeoutConfig::builder().operation_timeout(Duration::from_secs(90)).build();
        let c = Timeouts::bounded(client(Some(own)));
        let t = c.config().timeout_config().unwrap();
        assert_eq!(t.operation_timeout(), Some(Duration::from_secs(90)));
        assert_eq!(t.operation_attempt_timeout(), None);
        // An explicit choice overrides it.
        let c = Timeouts::new(Duration::from_secs(4), Duration::from_secs(1)).client_with(&c);
        let t = c.config().timeout_config().unwrap();
        assert_eq!(t.operation_timeout(), Some(Duration::from_secs(4)));
        assert_eq!(t.operation_attempt_timeout(), Some(Duration::from_secs(1)));
    }
}
