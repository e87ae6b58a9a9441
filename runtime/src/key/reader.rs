//! Splitting a composite key back into components, as the generated `parse` does.

use super::{KeyPart, KeyPartError, PaddedKeyPart};
use crate::KeyError;

/// Reads a key string left to right against its template: literals must match exactly,
/// and a component runs up to the next `#` (components never contain one).
#[derive(Debug)]
pub struct KeyReader<'a> {
    key: &'static str,
    template: &'static str,
    text: &'a str,
    pos: usize,
}

impl<'a> KeyReader<'a> {
    /// Starts reading `text`, the value of key attribute `key` written from `template`.
    pub fn new(key: &'static str, template: &'static str, text: &'a str) -> Self {
        KeyReader { key, template, text, pos: 0 }
    }

    fn mismatch(&self, reason: String) -> KeyError {
        KeyError::Mismatch { key: self.key, template: self.template, text: self.text.to_owned(), reason }
    }

    /// Expects the literal `lit` next.
    pub fn literal(&mut self, lit: &str) -> Result<(), KeyError> {
        if self.text[self.pos..].starts_with(lit) {
            self.pos += lit.len();
            Ok(())
        } else {
            Err(self.mismatch(format!("expected `{lit}` at byte {}", self.pos)))
        }
    }

    fn component(&mut self) -> &'a str {
        let rest = &self.text[self.pos..];
        let len = rest.find('#').unwrap_or(rest.len());
        self.pos += len;
        &rest[..len]
    }

    fn parse_error(&self, field: &'static str, source: KeyPartError) -> KeyError {
        KeyError::Parse { key: self.key, field, text: self.text.to_owned(), source }
    }

    /// Reads the component of `field`.
    pub fn part<T: KeyPart>(&mut self, field: &'static str) -> Result<T, KeyError> {
        let text = self.component();
        T::parse_key(text).map_err(|e| self.parse_error(field, e))
    }

    /// Reads the component of `field`, written zero-padded to `width`.
    pub fn part_padded<T: PaddedKeyPart>(&mut self, field: &'static str, width: usize) -> Result<T, KeyError> {
        let text = self.component();
        T::parse_key_padded(text, width).map_err(|e| self.parse_error(field, e))
    }

    /// Expects the end of the text.
    pub fn end(self) -> Result<(), KeyError> {
        if self.pos == self.text.len() {
            Ok(())
        } else {
            Err(self.mismatch(format!("unexpected `{}` at the end", &self.text[self.pos..])))
        }
    }
}
