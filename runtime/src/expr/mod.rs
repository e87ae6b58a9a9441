//! Typed conditions and filters: `<Name>::fields()` gives one [`Path`] per stored field; its
//! comparisons build a [`Condition`] of that entity, which renders to a DynamoDB condition or
//! filter expression with every name and value behind a placeholder.
//!
//! Values are encoded exactly as the field's attribute is (a `#[derive(KeyPart)]` enum compares
//! as its stored text, a `u64` as a Number), by the same code the item codec uses, so a
//! condition compares like with like. A value that cannot be encoded makes the condition
//! invalid: the request that carries it is refused before sending ([`crate::Error::Validation`]).

/// `Clone`, `Copy` and `Debug` of a wrapper of a [`Path`] (`ReadOnly`, `StoredWith`,
/// `Encrypted`: a path with fewer or other methods), and the path inside.
macro_rules! path_wrapper {
    ($name:ident) => {
        impl<E, T> Clone for $name<E, T> {
            fn clone(&self) -> Self {
                *self
            }
        }

        impl<E, T> Copy for $name<E, T> {}

        impl<E, T> core::fmt::Debug for $name<E, T> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_tuple(stringify!($name)).field(&self.0.path_text()).finish()
            }
        }

        impl<E, T> $name<E, T> {
            /// The path inside.
            #[allow(dead_code)]
            pub(crate) fn path(self) -> Path<E, T> {
                self.0
            }
        }
    };
}

mod doc;
pub(crate) mod document;

pub(crate) use doc::Name;
pub use doc::{DocumentAt, List, Map, Segment};

use std::collections::HashMap;
use std::marker::PhantomData;

mod encrypted;
pub use encrypted::{Comparable, Encrypted, ViewPath};

mod with;
pub use with::{Reachable, StoredWith};

use aws_sdk_dynamodb::types::AttributeValue;

/// Encodes a field's value as its attribute (`Ok(None)`: the attribute is omitted, as for `None`).
pub type Encoder<T> = fn(&T) -> Result<Option<AttributeValue>, String>;

/// Reads a field's value from its attribute (`None`: absent), where the entity reads it its own
/// way (`#[entity(with = ..)]`, `#[entity(default)]`, the `#[version]`): views read it the same.
pub type Decoder<T> = fn(Option<AttributeValue>) -> Result<T, String>;

/// What a condition compares a field of type `T` with: a `T` (an integer literal is taken as the
/// field's own integer type), a `&str` for a `String`, a bare value for an `Option` field.
pub trait Value<T> {
    /// The value as the field's type.
    fn into_value(self) -> T;
}

impl<T> Value<T> for T {
    fn into_value(self) -> T {
        self
    }
}

impl<T> Value<Option<T>> for T {
    fn into_value(self) -> Option<T> {
        Some(self)
    }
}

impl Value<String> for &str {
    fn into_value(self) -> String {
        self.to_owned()
    }
}

impl Value<Option<String>> for &str {
    fn into_value(self) -> Option<String> {
        Some(self.to_owned())
    }
}

/// A stored field of entity `E`, holding values of type `T`: what `<Name>::fields()` gives.
pub struct Path<E, T> {
    attr: &'static str,
    /// The segments below the attribute, for a path into a document (`address.city`); empty
    /// for a top-level field.
    rest: &'static [Segment],
    encode: Encoder<T>,
    /// Where it holds, the value is stored absent: a document's field that serde skips
    /// (`skip_serializing_if`), as a top-level `None` is (its encoder says so itself).
    skip: Option<fn(&T) -> bool>,
    decode: Option<Decoder<T>>,
    /// What an update does with a top-level field besides writing it ([`Role`]).
    pub(crate) role: Role<T>,
    _entity: PhantomData<fn() -> E>,
}

/// What an update writes (`Update::set`, `remove`, ..): a field's [`Path`] (of any depth), or
/// the path of a field stored with a module ([`StoredWith`]) or encrypted ([`Encrypted`]). Not
/// a [`ReadOnly`] one: a primary-key field, the `#[version]`, `#[created_at]`, `#[updated_at]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a field an update writes",
    label = "read-only: an update cannot write it",
    note = "a primary-key field is the item's identity (delete the item and create another), and the \
            `#[version]`, `#[created_at]` and `#[updated_at]` are written by the library; their paths compare \
            (conditions, filters) but take no update action"
)]
pub trait FieldPath<E> {
    /// The type of the values at the path.
    type Value;
    /// The path. Implemented by this crate's paths.
    #[doc(hidden)]
    fn __path(self) -> Path<E, Self::Value>;
}

impl<E, T> FieldPath<E> for Path<E, T> {
    type Value = T;
    fn __path(self) -> Path<E, T> {
        self
    }
}

impl<E, T> FieldPath<E> for StoredWith<E, T> {
    type Value = T;
    fn __path(self) -> Path<E, T> {
        self.path()
    }
}

impl<E, T> FieldPath<E> for Encrypted<E, T> {
    type Value = T;
    fn __path(self) -> Path<E, T> {
        self.path()
    }
}

/// A field's validator as an update runs it, on the value set (`None`: the field removed).
pub type Validator<T> = fn(Option<&T>) -> Result<(), crate::error::Error>;

/// The path of a stored field an update does not write: a primary-key field (the item's
/// identity), the `#[version]`, `#[created_at]`, `#[updated_at]`. It compares as its [`Path`]
/// does (it dereferences to it: `f.created.gt(t)`), and is no [`FieldPath`], so an update of it
/// is a compile error.
pub struct ReadOnly<E, T>(Path<E, T>);

path_wrapper!(ReadOnly);

impl<E, T> ReadOnly<E, T> {
    /// The read-only path of a field. Called by the generated `fields()`.
    #[doc(hidden)]
    pub const fn __new(path: Path<E, T>) -> Self {
        ReadOnly(path)
    }
}

impl<E, T> core::ops::Deref for ReadOnly<E, T> {
    type Target = Path<E, T>;
    fn deref(&self) -> &Path<E, T> {
        &self.0
    }
}

/// What an update of a top-level field does besides writing its attribute: keep the index keys
/// made of it in step (its slot among the fields of index keys), write no attribute (a field
/// kept in the keys only), run its validator. Generated, for the fields that need one.
pub(crate) struct Role<T> {
    pub(crate) slot: Option<u8>,
    pub(crate) key_only: bool,
    /// The validator, on the value set (`None`: the field removed, an `Option`'s `None`).
    pub(crate) check: Option<Validator<T>>,
}

impl<T> Clone for Role<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Role<T> {}

impl<T> Role<T> {
    pub(crate) const NONE: Role<T> = Role { slot: None, key_only: false, check: None };
}

impl<E, T> Clone for Path<E, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E, T> Copy for Path<E, T> {}

impl<E, T> core::fmt::Debug for Path<E, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("Path").field(&self.name().to_string()).finish()
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Expr {
    Compare(Operand, &'static str, AttributeValue),
    Between(Operand, AttributeValue, AttributeValue),
    BeginsWith(Name, AttributeValue),
    Contains(Name, AttributeValue),
    Exists(Name),
    NotExists(Name),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Operand {
    Attr(Name),
    Size(Name),
}

/// A condition on the items of entity `E`: on a write (`put`, `delete`, `update`, a
/// transaction action), a query's filter, or a scan's.
pub struct Condition<E> {
    expr: Result<Expr, String>,
    _entity: PhantomData<fn() -> E>,
}

impl<E> Clone for Condition<E> {
    fn clone(&self) -> Self {
        Condition { expr: self.expr.clone(), _entity: PhantomData }
    }
}

impl<E> core::fmt::Debug for Condition<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("Condition").field(&self.expr).finish()
    }
}

impl<E> Condition<E> {
    fn new(expr: Result<Expr, String>) -> Self {
        Condition { expr, _entity: PhantomData }
    }

    /// Both conditions hold.
    pub fn and(self, other: Condition<E>) -> Condition<E> {
        Condition::new(self.expr.and_then(|a| other.expr.map(|b| Expr::And(Box::new(a), Box::new(b)))))
    }

    /// Either condition holds.
    pub fn or(self, other: Condition<E>) -> Condition<E> {
        Condition::new(self.expr.and_then(|a| other.expr.map(|b| Expr::Or(Box::new(a), Box::new(b)))))
    }

    /// The condition does not hold.
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Condition<E> {
        Condition::new(self.expr.map(|a| Expr::Not(Box::new(a))))
    }

    /// Adds `next` to the condition in `slot` (`AND`), or puts it there. Crate-internal: filters,
    /// conditions on writes.
    pub(crate) fn and_into(slot: &mut Option<Condition<E>>, next: Condition<E>) {
        *slot = Some(match slot.take() {
            Some(c) => c.and(next),
            None => next,
        });
    }

    /// The same condition, for another item type with the same attributes (a collection or a
    /// view of the entity). Crate-internal.
    pub(crate) fn cast<F>(self) -> Condition<F> {
        Condition::new(self.expr)
    }

    /// [`Condition::render`], as one operand of an `AND` with the write's own conditions:
    /// parenthesized unless it already is a parenthesized group (DynamoDB rejects redundant
    /// parentheses, `((a AND b))`, with a ValidationException).
    pub(crate) fn render_operand(
        &self,
        names: &mut HashMap<String, String>,
        values: &mut HashMap<String, AttributeValue>,
    ) -> Result<String, String> {
        let text = self.render(names, values)?;
        // Rendered groups (`AND`, `OR`, `NOT`, ranges) are wrapped whole; nothing else starts with `(`.
        Ok(if text.starts_with('(') { text } else { format!("({text})") })
    }

    /// Renders the condition into `names` and `values` (placeholders `#c<n>` and `:c<n>`, numbered
    /// after those already there), or says why it cannot be sent.
    pub fn render(
        &self,
        names: &mut HashMap<String, String>,
        values: &mut HashMap<String, AttributeValue>,
    ) -> Result<String, String> {
        let expr = self.expr.as_ref().map_err(Clone::clone)?;
        let mut r = Renderer { names, values, out: String::new() };
        r.expr(expr);
        Ok(r.out)
    }
}

struct Renderer<'a> {
    names: &'a mut HashMap<String, String>,
    values: &'a mut HashMap<String, AttributeValue>,
    out: String,
}

impl Renderer<'_> {
    fn name(&mut self, attr: &str) -> String {
        if let Some((k, _)) = self.names.iter().find(|(k, v)| v.as_str() == attr && k.starts_with("#c")) {
            return k.clone();
        }
        let key = format!("#c{}", self.names.len());
        self.names.insert(key.clone(), attr.to_owned());
        key
    }

    fn value(&mut self, v: &AttributeValue) -> String {
        let key = format!(":c{}", self.values.len());
        self.values.insert(key.clone(), v.clone());
        key
    }

    /// A path: each name segment behind a placeholder, list indexes as numbers.
    fn path(&mut self, n: Name) -> String {
        let mut out = self.name(n.attr);
        for s in n.rest {
            match s {
                Segment::Field(k) | Segment::Key(k) => {
                    out.push('.');
                    out.push_str(&self.name(k));
                }
                Segment::Index(i) => {
                    let _ = std::fmt::Write::write_fmt(&mut out, format_args!("[{i}]"));
                }
            }
        }
        out
    }

    fn operand(&mut self, o: Operand) -> String {
        match o {
            Operand::Attr(a) => self.path(a),
            Operand::Size(a) => format!("size({})", self.path(a)),
        }
    }

    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Compare(o, op, v) => {
                let (o, v) = (self.operand(*o), self.value(v));
                self.out.push_str(&format!("{o} {op} {v}"));
            }
            // Not `BETWEEN`: DynamoDB rejects a BETWEEN whose lower bound is above its upper
            // bound, while an empty range should simply select nothing.
            Expr::Between(o, lo, hi) => {
                let (o, lo, hi) = (self.operand(*o), self.value(lo), self.value(hi));
                self.out.push_str(&format!("({o} >= {lo} AND {o} <= {hi})"));
            }
            Expr::BeginsWith(a, v) => {
                let (a, v) = (self.path(*a), self.value(v));
                self.out.push_str(&format!("begins_with({a}, {v})"));
            }
            Expr::Contains(a, v) => {
                let (a, v) = (self.path(*a), self.value(v));
                self.out.push_str(&format!("contains({a}, {v})"));
            }
            Expr::Exists(a) => {
                let a = self.path(*a);
                self.out.push_str(&format!("attribute_exists({a})"));
            }
            Expr::NotExists(a) => {
                let a = self.path(*a);
                self.out.push_str(&format!("attribute_not_exists({a})"));
            }
            Expr::And(a, b) | Expr::Or(a, b) => {
                let op = if matches!(e, Expr::And(..)) { " AND " } else { " OR " };
                self.out.push('(');
                self.expr(a);
                self.out.push_str(op);
                self.expr(b);
                self.out.push(')');
            }
            Expr::Not(a) => {
                self.out.push_str("(NOT ");
                self.expr(a);
                self.out.push(')');
            }
        }
    }
}

impl<E, T> Path<E, T> {
    /// A path. Called by the generated `fields()`.
    #[doc(hidden)]
    pub const fn __new(attr: &'static str, encode: Encoder<T>) -> Self {
        Path { attr, rest: &[], encode, skip: None, decode: None, role: Role::NONE, _entity: PhantomData }
    }

    /// The path of a field of an index key an update keeps in step: its slot. Called by the
    /// generated `fields()`.
    #[doc(hidden)]
    #[must_use]
    pub const fn __slot(self, slot: u8) -> Self {
        Path { role: Role { slot: Some(slot), ..self.role }, ..self }
    }

    /// The path as a [`ReadOnly`] one. Called by the generated `fields()`.
    #[doc(hidden)]
    pub const fn __read_only(self) -> ReadOnly<E, T> {
        ReadOnly(self)
    }

    /// The path of a field kept in the keys only: an update writes no attribute for it. Called
    /// by the generated `fields()`.
    #[doc(hidden)]
    #[must_use]
    pub const fn __key_only(self) -> Self {
        Path { role: Role { key_only: true, ..self.role }, ..self }
    }

    /// The path of a field with a validator, which an update runs on the value it sets. Called
    /// by the generated `fields()`.
    #[doc(hidden)]
    #[must_use]
    pub const fn __checked(self, check: Validator<T>) -> Self {
        Path { role: Role { check: Some(check), ..self.role }, ..self }
    }

    /// The path, read with `decode` rather than by the field's type. Called by the generated
    /// `fields()`.
    #[doc(hidden)]
    #[must_use]
    pub const fn __with_decode(self, decode: Decoder<T>) -> Self {
        Path { decode: Some(decode), ..self }
    }

    /// How the entity reads the field, if not by its type alone, for a view field of type `U`
    /// (`None` if `U` is not `T`: the view's own type check reports that, once). Called by
    /// generated views.
    #[doc(hidden)]
    pub fn __decoder_as<U: 'static>(&self) -> Option<Decoder<U>>
    where
        T: 'static,
    {
        let decode: &dyn core::any::Any = &self.decode;
        decode.downcast_ref::<Option<Decoder<U>>>().copied().flatten()
    }

    /// The attribute name (for a path into a document, the top-level attribute that holds it).
    pub fn attribute(&self) -> &'static str {
        self.attr
    }

    /// The path as DynamoDB names it, for messages: `address.city`, `lines[2].sku`,
    /// `prefs["a.b"]`.
    pub fn path_text(&self) -> String {
        self.name().to_string()
    }

    pub(crate) fn name(&self) -> Name {
        Name { attr: self.attr, rest: self.rest }
    }

    /// The value as the path's attribute holds it (as an update writes it; `None`: absent), or
    /// why it cannot be.
    pub(crate) fn encode_value(&self, value: &T) -> Result<Option<AttributeValue>, String> {
        match self.skip {
            Some(skip) if skip(value) => Ok(None),
            _ => (self.encode)(value),
        }
    }

    /// The value encoded as its type is, whether or not it would be stored (an `ADD`'s operand).
    pub(crate) fn encode_operand(&self, value: &T) -> Result<Option<AttributeValue>, String> {
        (self.encode)(value)
    }

    fn encoded(&self, value: &T) -> Result<Option<AttributeValue>, String> {
        let v = self
            .encode_value(value)
            .map_err(|m| format!("cannot encode a value of `{}` for a condition: {m}", self.name()))?;
        // Numbers DynamoDB cannot store (NaN, out of range, over 38 digits) are refused here too.
        if let Some(v) = &v {
            crate::size::check_value("a condition", &self.name().to_string(), v).map_err(|e| e.to_string())?;
        }
        Ok(v)
    }

    /// Whether the path is a document's field (`address.city`): one serde reads as `None` (or
    /// its default) when the document's map lacks it.
    fn is_document_field(&self) -> bool {
        matches!(self.rest.last(), Some(Segment::Field(_)))
    }

    fn compare(&self, op: &'static str, value: T) -> Condition<E> {
        let name = self.name();
        let either = |a: Expr, b: Expr, op: fn(Box<Expr>, Box<Expr>) -> Expr| op(Box::new(a), Box::new(b));
        Condition::new(self.encoded(&value).and_then(|v| match v {
            // A document's field stored NULL for `None` (serde's way without
            // `skip_serializing_if`) reads as `None` when absent too (a document written before
            // the field, a `remove`): `None` is either.
            Some(v @ AttributeValue::Null(_)) if self.is_document_field() && op == "=" => {
                Ok(either(Expr::NotExists(name), Expr::Compare(Operand::Attr(name), op, v), Expr::Or))
            }
            Some(v @ AttributeValue::Null(_)) if self.is_document_field() && op == "<>" => {
                Ok(either(Expr::Exists(name), Expr::Compare(Operand::Attr(name), op, v), Expr::And))
            }
            Some(v) => Ok(Expr::Compare(Operand::Attr(name), op, v)),
            // `None` is stored as an absent attribute (a top-level `None`, a document's field
            // serde skips).
            None if op == "=" => Ok(Expr::NotExists(name)),
            None if op == "<>" => Ok(Expr::Exists(name)),
            None => Err(format!("`{name}` compared with an absent value (`None`)")),
        }))
    }

    /// The attribute equals `value` (for an `Option` field, `None` means the attribute is absent).
    pub fn eq(&self, value: impl Value<T>) -> Condition<E> {
        self.compare("=", value.into_value())
    }

    /// The attribute differs from `value` (or is absent).
    pub fn ne(&self, value: impl Value<T>) -> Condition<E> {
        self.compare("<>", value.into_value())
    }

    /// The attribute is less than `value` (numbers by value, strings by UTF-8 bytes).
    pub fn lt(&self, value: impl Value<T>) -> Condition<E> {
        self.compare("<", value.into_value())
    }

    /// The attribute is at most `value`.
    pub fn lte(&self, value: impl Value<T>) -> Condition<E> {
        self.compare("<=", value.into_value())
    }

    /// The attribute is greater than `value`.
    pub fn gt(&self, value: impl Value<T>) -> Condition<E> {
        self.compare(">", value.into_value())
    }

    /// The attribute is at least `value`.
    pub fn gte(&self, value: impl Value<T>) -> Condition<E> {
        self.compare(">=", value.into_value())
    }

    /// The attribute is between `low` and `high`, both included.
    pub fn between(&self, low: impl Value<T>, high: impl Value<T>) -> Condition<E> {
        let (low, high) = (self.encoded(&low.into_value()), self.encoded(&high.into_value()));
        Condition::new(low.and_then(|l| high.map(|h| (l, h))).and_then(|bounds| match bounds {
            (Some(l), Some(h)) => Ok(Expr::Between(Operand::Attr(self.name()), l, h)),
            _ => Err(format!("`{}` between absent values (`None`)", self.name())),
        }))
    }

    /// The item has the attribute.
    pub fn exists(&self) -> Condition<E> {
        Condition::new(Ok(Expr::Exists(self.name())))
    }

    /// The item does not have the attribute.
    pub fn not_exists(&self) -> Condition<E> {
        Condition::new(Ok(Expr::NotExists(self.name())))
    }

    /// The attribute's size: characters of a string, bytes of binary, elements of a list, set
    /// or map.
    pub fn size(&self) -> Size<E> {
        Size { attr: self.name(), _entity: PhantomData }
    }
}

/// Fields whose attribute is a string (S): `begins_with`.
pub trait Text {}
impl Text for String {}
impl Text for Option<String> {}

impl<E, T: Text> Path<E, T> {
    /// The string attribute starts with `prefix`.
    pub fn begins_with(&self, prefix: impl Into<String>) -> Condition<E> {
        Condition::new(Ok(Expr::BeginsWith(self.name(), AttributeValue::S(prefix.into()))))
    }
}

/// Fields `contains` applies to: strings (a substring), lists and sets (an element).
pub trait Contains {
    /// What is looked for: a `String` in a string, an element in a list or set.
    type Part;
    /// Encodes it as DynamoDB compares it.
    fn encode_part(part: Self::Part) -> Result<AttributeValue, String>;
}

impl Contains for String {
    type Part = String;
    fn encode_part(part: String) -> Result<AttributeValue, String> {
        Ok(AttributeValue::S(part))
    }
}

fn element<X: serde::Serialize>(x: X) -> Result<AttributeValue, String> {
    serde_dynamo::to_attribute_value::<_, AttributeValue>(x).map_err(|e| e.to_string())
}

impl<X: serde::Serialize> Contains for Vec<X> {
    type Part = X;
    fn encode_part(part: X) -> Result<AttributeValue, String> {
        element(part)
    }
}

impl<X: serde::Serialize, S> Contains for std::collections::HashSet<X, S> {
    type Part = X;
    fn encode_part(part: X) -> Result<AttributeValue, String> {
        element(part)
    }
}

impl<X: serde::Serialize> Contains for std::collections::BTreeSet<X> {
    type Part = X;
    fn encode_part(part: X) -> Result<AttributeValue, String> {
        element(part)
    }
}

impl<T: Contains> Contains for Option<T> {
    type Part = T::Part;
    fn encode_part(part: T::Part) -> Result<AttributeValue, String> {
        T::encode_part(part)
    }
}

impl<E, T: Contains> Path<E, T> {
    /// The attribute contains `part`: a substring of a string, an element of a list or set.
    pub fn contains(&self, part: impl Into<T::Part>) -> Condition<E> {
        let attr = self.name();
        Condition::new(
            T::encode_part(part.into())
                .map(|v| Expr::Contains(attr, v))
                .map_err(|e| format!("cannot encode a part of `{attr}` for a condition: {e}")),
        )
    }
}

/// The size of an attribute, to compare (`fields().tags.size().gt(3)`).
pub struct Size<E> {
    attr: Name,
    _entity: PhantomData<fn() -> E>,
}

impl<E> core::fmt::Debug for Size<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("Size").field(&self.attr.to_string()).finish()
    }
}

impl<E> Size<E> {
    fn compare(&self, op: &'static str, n: u64) -> Condition<E> {
        Condition::new(Ok(Expr::Compare(Operand::Size(self.attr), op, AttributeValue::N(n.to_string()))))
    }

    /// The size equals `n`.
    pub fn eq(&self, n: u64) -> Condition<E> {
        self.compare("=", n)
    }

    /// The size differs from `n`.
    pub fn ne(&self, n: u64) -> Condition<E> {
        self.compare("<>", n)
    }

    /// The size is less than `n`.
    pub fn lt(&self, n: u64) -> Condition<E> {
        self.compare("<", n)
    }

    /// The size is at most `n`.
    pub fn lte(&self, n: u64) -> Condition<E> {
        self.compare("<=", n)
    }

    /// The size is greater than `n`.
    pub fn gt(&self, n: u64) -> Condition<E> {
        self.compare(">", n)
    }

    /// The size is at least `n`.
    pub fn gte(&self, n: u64) -> Condition<E> {
        self.compare(">=", n)
    }

    /// The size is between `low` and `high`, both included.
    pub fn between(&self, low: u64, high: u64) -> Condition<E> {
        Condition::new(Ok(Expr::Between(
            Operand::Size(self.attr),
            AttributeValue::N(low.to_string()),
            AttributeValue::N(high.to_string()),
        )))
    }
}
