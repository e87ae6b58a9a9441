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
    /// The first error met by the methods that keep it (`lit`, `get`, ..), returned by
    /// [`KeyReader::done`]; boxed, the error path being cold.
    error: Option<Box<KeyError>>,
    /// Whether reading stopped without an error of this reader's own (a field's reader of a
    /// joined shard whose text did not split: the outer reader holds the error).
    stopped: bool,
}

impl<'a> KeyReader<'a> {
    /// Starts reading `text`, the value of key attribute `key` written from `template`.
    #[inline]
    pub fn new(key: &'static str, template: &'static str, text: &'a str) -> Self {
        KeyReader { key, template, text, rest: text, error: None, stopped: false }
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
        KeyReader { key: self.key, template: self.template, text: self.text, rest: part, error: None, stopped: false }
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

    // -----------------------------------------------------------------------------------------
    // Reading without an early return per part: the first error is kept and every later step
    // does nothing; [`KeyReader::done`] gives it. What the generated `parse` uses, so that it
    // has one exit per key rather than one per part (each dropping what was read before it).

    /// Whether an earlier step failed.
    #[inline(always)]
    fn failing(&self) -> bool {
        self.stopped || self.error.is_some()
    }

    /// Keeps `error` unless an earlier one is kept.
    #[cold]
    #[inline(never)]
    pub fn fail(&mut self, error: KeyError) {
        if !self.failing() {
            self.error = Some(Box::new(error));
        }
    }

    /// [`KeyReader::literal`], its error kept.
    #[inline]
    pub fn lit(&mut self, lit: &str) {
        if !self.failing()
            && let Err(e) = self.literal(lit)
        {
            self.fail(e);
        }
    }

    /// The component of `field`, read by `read` (a key field's `__read`): `None` with the error
    /// kept, or if an earlier step failed.
    #[inline(always)]
    pub fn get<T>(
        &mut self,
        read: fn(&mut KeyReader<'a>, &'static str) -> Result<T, KeyError>,
        field: &'static str,
    ) -> Option<T> {
        if self.failing() {
            return None;
        }
        match read(self, field) {
            Ok(v) => Some(v),
            Err(e) => {
                self.fail(e);
                None
            }
        }
    }

    /// [`KeyReader::get`] of a component written zero-padded to `width`.
    #[inline(always)]
    pub fn get_padded<T>(
        &mut self,
        read: fn(&mut KeyReader<'a>, &'static str, usize) -> Result<T, KeyError>,
        field: &'static str,
        width: usize,
    ) -> Option<T> {
        if self.failing() {
            return None;
        }
        match read(self, field, width) {
            Ok(v) => Some(v),
            Err(e) => {
                self.fail(e);
                None
            }
        }
    }

    /// [`KeyReader::shard_number`], its error kept.
    #[inline]
    pub fn shard_step(&mut self, shards: u16, unpadded: bool) {
        if !self.failing()
            && let Err(e) = self.shard_number(shards, unpadded)
        {
            self.fail(e);
        }
    }

    /// [`KeyReader::joined_shard`], its error kept: the field's reader (a stopped one if the
    /// text does not split), to be given back with [`KeyReader::rejoin`].
    #[inline]
    pub fn joined(&mut self, sep: u8, shards: u16, unpadded: bool) -> KeyReader<'a> {
        let mut field = self.sub("");
        if self.failing() {
            field.stopped = true;
            return field;
        }
        match self.joined_shard(sep, shards, unpadded) {
            Ok(reader) => reader,
            Err(e) => {
                self.fail(e);
                field.stopped = true;
                field
            }
        }
    }

    /// The end of a joined field's reader: its error, or text left in it, is this reader's.
    #[inline]
    pub fn rejoin(&mut self, field: KeyReader<'a>) {
        if let Err(e) = field.done() {
            self.fail(e);
        }
    }

    /// The first error kept, else [`KeyReader::end`].
    #[inline]
    pub fn done(self) -> Result<(), KeyError> {
        match self.error {
            Some(e) => Err(*e),
            None if self.stopped => Ok(()),
            None => self.end(),
        }
    }

    /// Expects the end of the text.
    #[inline]
    pub fn end(self) -> Result<(), KeyError> {
        if self.rest.is_empty() { Ok(()) } else { Err(self.trailing()) }
    }

    #[cold]
    #[inline(never)]
    fn trailing(&self) -> KeyError {
        self.mismatch(format!("unexpected `{}` at the end", self.rest))
    }
}
