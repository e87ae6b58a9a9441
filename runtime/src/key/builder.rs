//! Writing a composite key left to right against its template, as the generated key formatters
//! do: the mirror of [`KeyReader`](super::KeyReader).

use std::cell::Cell;

use super::{KeyPart, PaddedKeyPart};
use crate::error::KeyError;

thread_local! {
    /// The buffer of [`KeyBuilder::scratch`], kept to spare an allocation per key compared.
    static BUFFER: Cell<String> = const { Cell::new(String::new()) };
}

/// Larger buffers are dropped rather than kept for the thread's lifetime.
const KEEP_BUFFER_BYTES: usize = 2048;

/// A key being written: literals and components appended in template order. A generated key
/// formatter takes one, writes its template and returns the text; given a
/// [`KeyBuilder::scratch`], the text is written on this thread's reused buffer, which
/// [`crate::codec::check_key`] hands back ([`KeyBuilder::recycle`]) after comparing it with a
/// stored key: no allocation. A component that cannot be written is kept as the builder's
/// error, which [`KeyBuilder::finish`] returns: a formatter is one call per part without an
/// early return after each. Called by generated code.
#[doc(hidden)]
#[derive(Debug)]
pub struct KeyBuilder {
    key: &'static str,
    out: String,
    // Boxed: the error path is cold, and a formatter takes the builder by value.
    error: Option<Box<KeyError>>,
}

impl KeyBuilder {
    /// A builder of a new key string.
    #[inline]
    pub fn new() -> Self {
        KeyBuilder { key: "", out: String::new(), error: None }
    }

    /// A builder on this thread's reused buffer, for a key that is only compared; its text goes
    /// back with [`KeyBuilder::recycle`] (on a formatting error, the buffer is simply dropped).
    #[inline]
    pub fn scratch() -> Self {
        KeyBuilder { key: "", out: Self::scratch_text(), error: None }
    }

    /// This thread's reused buffer, empty, for a text that is only kept a while; it goes back
    /// with [`KeyBuilder::recycle`].
    #[inline]
    pub(crate) fn scratch_text() -> String {
        let mut out = BUFFER.try_with(Cell::take).unwrap_or_default();
        out.clear();
        out
    }

    /// Starts key attribute `key`, whose text is about `capacity` bytes.
    #[inline]
    pub fn start(&mut self, key: &'static str, capacity: usize) {
        self.key = key;
        if self.out.capacity() == 0 {
            // One allocation of the final size, not `reserve`'s growth path.
            self.out = String::with_capacity(capacity);
        } else {
            self.out.reserve(capacity);
        }
    }

    /// Appends a literal of the template.
    #[inline]
    pub fn literal(&mut self, lit: &str) {
        self.out.push_str(lit);
    }

    /// Appends the component of `field` (an error is kept, see [`KeyBuilder::finish`]).
    #[inline]
    pub fn part<T: KeyPart>(&mut self, value: &T, field: &'static str) {
        if let Err(source) = super::write_part(value, &mut self.out) {
            self.fail(KeyError::Format { key: self.key, field, source });
        }
    }

    /// Appends the component of `field` to an index key: as [`KeyBuilder::part`], and a component
    /// whose text is empty (an empty string) is refused, as DynamoDB refuses an empty index key
    /// on a field's own attribute. `None` in an `Option` field is how an item stays out of an
    /// index. (A method apart, so that the table's keys pay nothing for it.)
    #[inline]
    pub fn part_in_index<T: KeyPart>(&mut self, value: &T, field: &'static str) {
        let before = self.out.len();
        self.part(value, field);
        if self.out.len() == before {
            self.empty_in_index(field);
        }
    }

    #[cold]
    #[inline(never)]
    fn empty_in_index(&mut self, field: &'static str) {
        let source = crate::error::KeyPartError::OutOfRange {
            expected: "a component of an index key, which is never empty (`None` leaves an item out of an index)",
            value: "the empty string".to_owned(),
        };
        self.fail(KeyError::Format { key: self.key, field, source });
    }

    /// Appends the component of `field`, zero-padded to `width` (an error is kept).
    #[inline]
    pub fn part_padded<T: PaddedKeyPart>(&mut self, value: &T, width: usize, field: &'static str) {
        if let Err(source) = super::write_part_padded(value, width, &mut self.out) {
            self.fail(KeyError::Format { key: self.key, field, source });
        }
    }

    /// Keeps the first error met.
    #[cold]
    #[inline(never)]
    fn fail(&mut self, error: KeyError) {
        if self.error.is_none() {
            self.error = Some(Box::new(error));
        }
    }

    /// The text written so far, to append to (a raw component, `codec::RawKeyField`).
    #[inline]
    pub(crate) fn buffer(&mut self) -> &mut String {
        &mut self.out
    }

    /// The key text, or the first component that could not be written.
    #[inline]
    pub fn finish(self) -> Result<String, KeyError> {
        match self.error {
            None => Ok(self.out),
            Some(e) => Err(*e),
        }
    }

    /// Hands the text of a [`KeyBuilder::scratch`] back for reuse.
    #[inline]
    pub fn recycle(text: String) {
        if text.capacity() <= KEEP_BUFFER_BYTES {
            // During thread-local destruction the buffer is simply dropped.
            let _ = BUFFER.try_with(|b| b.set(text));
        }
    }
}

impl Default for KeyBuilder {
    fn default() -> Self {
        KeyBuilder::new()
    }
}
