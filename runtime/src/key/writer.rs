//! How a [`KeyPart`]'s text joins a key: checked, unless this crate wrote it.
//!
//! A key is built in one `String`. An implementation of `KeyPart` outside this crate never sees
//! it: its `write_key` gets a scratch buffer, whose text is checked against the key-text
//! contract and only then appended. So an implementation that clears or shortens the buffer it
//! is given, or writes a `#`, can neither forge nor break the key around its component.
//!
//! [`KeyWriter`] is the only way to the key buffer, and outside this crate it offers only ways
//! that keep the contract: a [`KeyWord`] (checked when it is made, at compile time in generated
//! code) and delegation to another `KeyPart`.

use std::cell::Cell;

use super::{KeyPart, KeyPartError, MIN_KEY_TEXT_BYTE};

/// The end of a key being written: where one component goes. Not an API; made only by this
/// crate.
#[derive(Debug)]
pub struct KeyWriter<'a> {
    out: &'a mut String,
}

/// A fixed component text known to keep the key-text contract (a `#[derive(KeyPart)]` enum
/// variant's word). Not an API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyWord(&'static str);

impl KeyWord {
    /// `word` as a key word: `None` if it is empty or holds a byte below `%`, or `%` itself
    /// (which marks escapes). Generated code makes its words in constants, so a bad word is a
    /// compile error there.
    pub const fn new(word: &'static str) -> Option<KeyWord> {
        let bytes = word.as_bytes();
        if bytes.is_empty() {
            return None;
        }
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] <= MIN_KEY_TEXT_BYTE {
                return None;
            }
            i += 1;
        }
        Some(KeyWord(word))
    }

    /// The text.
    pub const fn as_str(self) -> &'static str {
        self.0
    }
}

thread_local! {
    /// The scratch buffer of checked writes, kept to spare an allocation per component.
    static SCRATCH: Cell<String> = const { Cell::new(String::new()) };
}

/// Larger scratch buffers are dropped rather than kept for the thread's lifetime.
const KEEP_SCRATCH_BYTES: usize = 4096;

impl<'a> KeyWriter<'a> {
    pub(crate) fn new(out: &'a mut String) -> Self {
        KeyWriter { out }
    }

    /// The key buffer itself, for this crate's implementations, whose text keeps the contract
    /// by construction (tested in `tests/keypart.rs`).
    #[inline]
    pub(crate) fn trusted(self) -> &'a mut String {
        self.out
    }

    /// Runs `write` on a scratch buffer and appends its text if it keeps the contract.
    #[inline]
    pub(crate) fn checked(
        self,
        write: impl FnOnce(&mut String) -> Result<(), KeyPartError>,
    ) -> Result<(), KeyPartError> {
        // A fresh buffer if the thread's is in use (a `write_key` that writes a key itself) or
        // gone (thread-local destruction).
        let mut scratch = SCRATCH.try_with(Cell::take).unwrap_or_default();
        scratch.clear();
        let result = write(&mut scratch).and_then(|()| check_text(&scratch));
        if result.is_ok() {
            self.out.push_str(&scratch);
        }
        if scratch.capacity() <= KEEP_SCRATCH_BYTES {
            scratch.clear();
            let _ = SCRATCH.try_with(|cell| cell.set(scratch));
        }
        result
    }

    /// Appends a word. For generated code.
    #[inline]
    pub fn word(self, word: KeyWord) -> Result<(), KeyPartError> {
        self.out.push_str(word.0);
        Ok(())
    }

    /// Writes `value` as it writes itself (a `#[derive(KeyPart)]` newtype delegating to its field).
    #[inline]
    pub fn delegate<T: KeyPart>(self, value: &T) -> Result<(), KeyPartError> {
        value.__write_part(self)
    }
}

/// Whether `text` keeps the key-text contract: no byte below `%`.
fn check_text(text: &str) -> Result<(), KeyPartError> {
    if text.bytes().any(|b| b < MIN_KEY_TEXT_BYTE) {
        return Err(KeyPartError::Forbidden { text: text.to_owned() });
    }
    Ok(())
}
