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
    #[inline]
    pub fn literal(&mut self, lit: &str) -> Result<(), KeyError> {
        // Byte comparison: `pos` is always on a char boundary and `lit` is whole UTF-8.
        if self.text.as_bytes()[self.pos..].starts_with(lit.as_bytes()) {
            self.pos += lit.len();
            Ok(())
        } else {
            Err(self.mismatch(format!("expected `{lit}` at byte {}", self.pos)))
        }
    }

    #[inline]
    fn component(&mut self) -> &'a str {
        let rest = &self.text[self.pos..];
        // Components are short: a plain byte loop beats the general searcher. `#` is ASCII, so
        // the split is on a char boundary.
        let len = rest.bytes().position(|b| b == b'#').unwrap_or(rest.len());
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

    /// Reads the rest of the text, whatever it holds: the component of a raw placeholder
    /// (`<field:raw>`), which is always the last part of its template.
    #[inline]
    pub fn rest(&mut self) -> &'a str {
        let rest = &self.text[self.pos..];
        self.pos = self.text.len();
        rest
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
