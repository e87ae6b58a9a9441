//! Splitting a composite key back into components, as the generated `parse` does.

use super::{KeyPart, KeyPartError, PaddedKeyPart, scan};
use crate::error::KeyError;

/// Reads a key string left to right against its template: literals must match exactly,
/// and a component runs up to the next `#` (components never contain one).
#[derive(Debug)]
pub struct KeyReader<'a> {
    key: &'static str,
    template: &'static str,
    text: &'a str,
    /// The text not read yet.
    rest: &'a str,
}

impl<'a> KeyReader<'a> {
    /// Starts reading `text`, the value of key attribute `key` written from `template`.
    #[inline]
    pub fn new(key: &'static str, template: &'static str, text: &'a str) -> Self {
        KeyReader { key, template, text, rest: text }
    }

    #[cold]
    #[inline(never)]
    fn mismatch(&self, reason: String) -> KeyError {
        KeyError::Mismatch { key: self.key, template: self.template, text: self.text.to_owned(), reason }
    }

    /// Expects the literal `lit` next.
    #[inline]
    pub fn literal(&mut self, lit: &str) -> Result<(), KeyError> {
        match self.rest.strip_prefix(lit) {
            Some(rest) => {
                self.rest = rest;
                Ok(())
            }
            None => Err(self.expected(lit)),
        }
    }

    /// The byte offset of what is read next.
    fn pos(&self) -> usize {
        self.text.len() - self.rest.len()
    }

    #[cold]
    #[inline(never)]
    fn expected(&self, lit: &str) -> KeyError {
        self.mismatch(format!("expected `{lit}` at byte {}", self.pos()))
    }

    /// The next component, and whether it is plain (no byte below `&`, so no escape).
    #[inline]
    fn component(&mut self) -> (&'a str, bool) {
        let bytes = self.rest.as_bytes();
        // A word at a time to the first byte below `&`: in a canonical key, the `#` that ends the
        // component (or none). Any other byte there (`%` starting an escape) is looked past.
        let (end, plain) = match scan::find_below_plain(bytes, 0) {
            None => (bytes.len(), true),
            Some(at) if bytes.get(at) == Some(&b'#') => (at, true),
            Some(at) => {
                let end = bytes.get(at..).and_then(|rest| rest.iter().position(|&b| b == b'#'));
                (end.map_or(bytes.len(), |i| at + i), false)
            }
        };
        // `#` is ASCII, so the split is on a char boundary.
        let (component, rest) = self.rest.split_at_checked(end).unwrap_or((self.rest, ""));
        self.rest = rest;
        (component, plain)
    }

    #[cold]
    #[inline(never)]
    fn parse_error(&self, field: &'static str, source: KeyPartError) -> KeyError {
        KeyError::Parse { key: self.key, field, text: self.text.to_owned(), source }
    }

    /// Reads the component of `field`.
    #[inline(always)]
    pub fn part<T: KeyPart>(&mut self, field: &'static str) -> Result<T, KeyError> {
        let (text, plain) = self.component();
        let value = if plain { T::__parse_plain(text) } else { T::parse_key(text) };
        value.map_err(|e| self.parse_error(field, e))
    }

    /// Reads the component of `field`, written zero-padded to `width`.
    #[inline(always)]
    pub fn part_padded<T: PaddedKeyPart>(&mut self, field: &'static str, width: usize) -> Result<T, KeyError> {
        let (text, _) = self.component();
        T::parse_key_padded(text, width).map_err(|e| self.parse_error(field, e))
    }

    /// The next `n` bytes, if there are that many (on a char boundary).
    pub(crate) fn take_bytes(&mut self, n: usize) -> Option<&'a str> {
        let (head, rest) = self.rest.split_at_checked(n)?;
        self.rest = rest;
        Some(head)
    }

    /// The text not read yet.
    pub(crate) fn remaining(&self) -> &'a str {
        self.rest
    }

    /// A reader of `part`, a piece of the text not read yet (errors name the whole text).
    pub(crate) fn sub(&self, part: &'a str) -> KeyReader<'a> {
        KeyReader { key: self.key, template: self.template, text: self.text, rest: part }
    }

    /// A mismatch at the current position, `reason` in words.
    #[cold]
    pub(crate) fn mismatch_at(&self, reason: String) -> KeyError {
        let at = self.pos();
        self.mismatch(format!("{reason} at byte {at}"))
    }

    /// Reads the rest of the text, whatever it holds: the component of a raw placeholder
    /// (`<field:raw>`), which is always the last part of its template.
    #[inline]
    pub fn rest(&mut self) -> &'a str {
        core::mem::take(&mut self.rest)
    }

    /// Expects the end of the text.
    #[inline]
    pub fn end(self) -> Result<(), KeyError> {
        self.at_end()
    }

    /// Expects the end of the text, the reader kept.
    #[inline]
    pub fn at_end(&self) -> Result<(), KeyError> {
        if self.rest.is_empty() { Ok(()) } else { Err(self.trailing()) }
    }

    #[cold]
    #[inline(never)]
    fn trailing(&self) -> KeyError {
        self.mismatch(format!("unexpected `{}` at the end", self.rest))
    }
}
