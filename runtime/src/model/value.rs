//! What the generated constructors and query conditions take for a field of type `T`.

/// A value accepted where a field of type `T` is expected: a key's fields
/// (`Message::key(..)`), a query's partition and sort-key conditions (`.ts().gt(t)`).
///
/// It is `T` itself, and for a `String` field also `&str`, `&String`, `Box<str>` and
/// `Cow<str>`. Unlike `impl Into<T>`, an integer literal infers as in a struct literal:
/// `Message::key("room", 1709234567000, "m")` and `.ts().gt(1709234567000)` compile.
///
/// Conditions and update actions, which name a field through `<Name>::fields()`, take their
/// values the same way through [`crate::expr::Value`]: there an `Option<T>` field takes the `T`
/// inside it (`.set(f.nickname, "ann")` sets `Some("ann")`) or `None`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a value of the field's type `{T}`",
    label = "expected `{T}`",
    note = "a field of type `T` takes a `T` (and a `String` field also a `&str`); convert the value first"
)]
pub trait IntoValue<T> {
    /// The value as the field's type.
    fn into_value(self) -> T;
}

impl<T> IntoValue<T> for T {
    #[inline]
    fn into_value(self) -> T {
        self
    }
}

impl IntoValue<String> for &str {
    #[inline]
    fn into_value(self) -> String {
        self.to_owned()
    }
}

impl IntoValue<String> for &String {
    #[inline]
    fn into_value(self) -> String {
        self.clone()
    }
}

impl IntoValue<String> for &mut str {
    #[inline]
    fn into_value(self) -> String {
        (*self).to_owned()
    }
}

impl IntoValue<String> for Box<str> {
    #[inline]
    fn into_value(self) -> String {
        self.into_string()
    }
}

impl IntoValue<String> for std::borrow::Cow<'_, str> {
    #[inline]
    fn into_value(self) -> String {
        self.into_owned()
    }
}

impl IntoValue<String> for char {
    #[inline]
    fn into_value(self) -> String {
        self.to_string()
    }
}
