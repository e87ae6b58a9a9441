//! AWS's DynamoDB for what the embedded engine does not serve (global tables, replicas, backups,
//! restores, continuous backups, resource policies): an SDK interceptor that hands each request to
//! a test's [`Answers`], which checks it and says what to do with it: let it through to the
//! engine, answer it here in the shape of the SDK's model (`aws-sdk-dynamodb` 1.136) while the
//! request goes to the engine as a harmless ListTables, or send the engine another request in its
//! place (a restore becomes the CreateTable of the restored table) and answer as AWS would. Every
//! DescribeTable answer passes through [`Answers::describe`], which adds what AWS reports and the
//! engine does not (replicas, consistency, witness, restore summary).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::config::interceptors::{
    BeforeDeserializationInterceptorContextMut, BeforeTransmitInterceptorContextMut, FinalizerInterceptorContextMut,
};
use aws_sdk_dynamodb::config::{AppName, ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::types::TableDescription;
use dynamo_entity::Table;

/// What to do with one request.
pub enum Reply {
    /// Send it to the engine as it is.
    Pass,
    /// Answer it here with this status and body; the engine gets a harmless ListTables.
    Answer(u16, String),
    /// Send the engine `operation` with `body` instead, and answer with this status and body.
    Instead { operation: String, body: String, status: u16, answer: String },
}

/// A test's AWS: what it answers, and what DescribeTable adds.
pub trait Answers: Send + Sync + 'static {
    /// The reply to `operation` with `body` (JSON).
    fn reply(&mut self, operation: &str, body: &serde_json::Value) -> Reply;
    /// Adds to DescribeTable's description what AWS would report.
    fn describe(&mut self, table: &mut TableDescription) {
        let _ = table;
    }
}

const DESCRIBE: &str = "aws-describe-table";
const ANSWER: &str = "aws-answer";

/// The interceptor: `A`'s replies, and every request it saw (operation, body).
pub struct Aws<A> {
    pub answers: Arc<Mutex<A>>,
    /// Every request seen: operation, body, and whether it was answered here.
    seen: Arc<Mutex<Vec<(String, String, bool)>>>,
    pending: Arc<Mutex<HashMap<usize, (u16, String)>>>,
    next: Arc<Mutex<usize>>,
}

impl<A> Clone for Aws<A> {
    fn clone(&self) -> Self {
        Aws {
            answers: self.answers.clone(),
            seen: self.seen.clone(),
            pending: self.pending.clone(),
            next: self.next.clone(),
        }
    }
}

impl<A> std::fmt::Debug for Aws<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Aws").finish_non_exhaustive()
    }
}

impl<A: Answers> Aws<A> {
    pub fn new(answers: A) -> Aws<A> {
        Aws {
            answers: Arc::new(Mutex::new(answers)),
            seen: Arc::default(),
            pending: Arc::default(),
            next: Arc::default(),
        }
    }

    /// `table` (same name, same client) with this AWS in front of the engine.
    pub fn on(&self, table: &Table) -> Table {
        let config = table.client().config().to_builder().interceptor(self.clone());
        Table::new(aws_sdk_dynamodb::Client::from_conf(config.build()), table.name())
    }

    /// Every request seen since the last call (operation, body), DescribeTable's aside.
    pub fn seen(&self) -> Vec<(String, String)> {
        std::mem::take(&mut *self.seen.lock().unwrap()).into_iter().map(|(op, body, _)| (op, body)).collect()
    }

    /// The requests answered here (not sent to the engine as they were) since the last call.
    pub fn answered(&self) -> Vec<(String, String)> {
        let seen = std::mem::take(&mut *self.seen.lock().unwrap());
        seen.into_iter().filter(|(_, _, answered)| *answered).map(|(op, body, _)| (op, body)).collect()
    }

    /// The bodies of the requests of `operation` in `seen`, as JSON.
    pub fn bodies(seen: &[(String, String)], operation: &str) -> Vec<serde_json::Value> {
        seen.iter().filter(|(op, _)| op == operation).map(|(_, b)| serde_json::from_str(b).unwrap()).collect()
    }
}

fn divert_to(request: &mut aws_sdk_dynamodb::config::http::HttpRequest, operation: &str, body: String) {
    request.headers_mut().insert("x-amz-target", format!("DynamoDB_20120810.{operation}"));
    request.headers_mut().insert("content-length", body.len().to_string());
    *request.body_mut() = body.into();
}

impl<A: Answers> Intercept for Aws<A> {
    fn name(&self) -> &'static str {
        "Aws"
    }

    fn modify_before_signing(
        &self,
        ctx: &mut BeforeTransmitInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = ctx.request_mut();
        let op = request.headers().get("x-amz-target").unwrap_or_default();
        let op = op.trim_start_matches("DynamoDB_20120810.").to_owned();
        if op == "DescribeTable" {
            cfg.interceptor_state().store_put(AppName::new(DESCRIBE)?);
            return Ok(());
        }
        let text = request.body().bytes().map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
        let body: serde_json::Value = serde_json::from_str(&text)?;
        let reply = self.answers.lock().unwrap().reply(&op, &body);
        self.seen.lock().unwrap().push((op.clone(), text, !matches!(reply, Reply::Pass)));
        let (status, answer) = match reply {
            Reply::Pass => return Ok(()),
            Reply::Answer(status, answer) => {
                divert_to(request, "ListTables", "{}".to_owned());
                (status, answer)
            }
            Reply::Instead { operation, body, status, answer } => {
                divert_to(request, &operation, body);
                (status, answer)
            }
        };
        let n = {
            let mut next = self.next.lock().unwrap();
            *next += 1;
            *next
        };
        self.pending.lock().unwrap().insert(n, (status, answer));
        cfg.interceptor_state().store_put(AppName::new(format!("{ANSWER}-{n}"))?);
        Ok(())
    }

    fn modify_before_deserialization(
        &self,
        ctx: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let n =
            cfg.load::<AppName>().and_then(|n| n.as_ref().strip_prefix(ANSWER)?.trim_start_matches('-').parse().ok());
        if let Some((status, body)) = n.and_then(|n: usize| self.pending.lock().unwrap().remove(&n)) {
            super::answer(ctx, status, body)?;
        }
        Ok(())
    }

    fn modify_before_attempt_completion(
        &self,
        ctx: &mut FinalizerInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if cfg.load::<AppName>().is_none_or(|n| n.as_ref() != DESCRIBE) {
            return Ok(());
        }
        let Some(Ok(output)) = ctx.output_or_error_mut() else { return Ok(()) };
        let Some(out) = output.downcast_mut::<aws_sdk_dynamodb::operation::describe_table::DescribeTableOutput>()
        else {
            return Ok(());
        };
        if let Some(t) = out.table.as_mut() {
            self.answers.lock().unwrap().describe(t);
        }
        Ok(())
    }
}
