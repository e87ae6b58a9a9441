//! Parsing of `#[pk]`, `#[sk]`, `#[gsiN(..)]`, `#[lsiN(..)]`, `#[entity(..)]`, `#[ttl]`,
//! `#[version]` and `#[unique]`. Every value keeps its span; every mistake is reported, not just the first.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Ident, LitStr, Meta};

use crate::case::RenameRule;
use crate::ctxt::Ctxt;
use crate::template::Template;

// Attribute names: the one place they are spelled.
pub const PK: &str = "pk";
pub const SK: &str = "sk";
pub const ENTITY: &str = "entity";
pub const TTL: &str = "ttl";
pub const VERSION: &str = "version";
pub const UNIQUE: &str = "unique";
pub const CREATED_AT: &str = "created_at";
pub const UPDATED_AT: &str = "updated_at";
/// `validate = "path"` on a field (`fn(&T) -> Result<(), String>`) or the struct
/// (`fn(&Self) -> Result<(), String>`).
pub const VALIDATE: &str = "validate";
/// `#[encrypt]` on a field: encrypted and signed by AWS's Database Encryption SDK (feature
/// `encryption`).
pub const ENCRYPT: &str = "encrypt";
pub const INDEX: &str = "index";
pub const PK_ATTR: &str = "pk_attr";
pub const SK_ATTR: &str = "sk_attr";
pub const QUERY: &str = "query";
pub const PROJECTION: &str = "projection";
pub const INCLUDE: &str = "include";
pub const RENAME_ALL: &str = "rename_all";
pub const RENAME: &str = "rename";
pub const TYPE_ATTR: &str = "type_attr";
pub const TYPE_NAME: &str = "type_name";
pub const CONSTANT_PK: &str = "constant_pk";
pub const KEY_ATTRIBUTES: &str = "key_attributes";
/// `owns_partition = true` (with `type_attr = false`): no other entity's items share this
/// entity's partitions, so its key alone identifies it even when the key is all placeholders.
pub const OWNS_PARTITION: &str = "owns_partition";
/// On a key field: `key_attribute = false` keeps it in the keys only, `key_attribute` (or
/// `= true`) writes it under `#[entity(key_attributes = false)]`.
pub const KEY_ATTRIBUTE: &str = "key_attribute";
pub const CRATE: &str = "crate";
pub const SKIP: &str = "skip";
pub const DEFAULT: &str = "default";
pub const WITH: &str = "with";
pub const SHARDS: &str = "shards";
pub const SHARD_BY: &str = "shard_by";
pub const SHARD_FN: &str = "shard_fn";
pub const TENANT: &str = "tenant";
pub const TENANT_SHARED: &str = "tenant_shared";
/// The shard counts a sharded key may have.
pub const MIN_SHARDS: u16 = 2;
pub const MAX_SHARDS: u16 = 512;
pub const MAX_GSI: u8 = 20;
pub const MAX_LSI: u8 = 5;

/// A value given at most once, with the tokens where it was given (on stable Rust a span
/// cannot be joined, so errors are placed with `new_spanned` over these tokens).
pub struct Attr<T> {
    name: &'static str,
    value: Option<(TokenStream, T)>,
}

impl<T> Attr<T> {
    pub fn none(name: &'static str) -> Self {
        Attr { name, value: None }
    }

    pub fn set(&mut self, cx: &Ctxt, at: impl ToTokens, value: T) {
        let at = at.into_token_stream();
        if let Some((first, _)) = &self.value {
            cx.error_spanned_by(&at, format!("duplicate `{}`", self.name));
            cx.error_spanned_by(first, format!("note: `{}` is first given here", self.name));
        } else {
            self.value = Some((at, value));
        }
    }

    pub fn get(self) -> Option<(TokenStream, T)> {
        self.value
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum IndexKind {
    Global,
    Local,
}

pub struct IndexAttr {
    pub kind: IndexKind,
    pub number: u8,
    /// The attribute's name (`gsi1`), for spans.
    pub path: Ident,
    pub pk: Option<Template>,
    pub sk: Option<Template>,
    pub index: Option<LitStr>,
    pub pk_attr: Option<LitStr>,
    pub sk_attr: Option<LitStr>,
    pub query: Option<LitStr>,
    /// `projection = "all" | "keys_only"`.
    pub projection: Option<LitStr>,
    /// `include = "field_a, field_b"`.
    pub include: Option<LitStr>,
    /// `shards = N`, with its tokens (0: a count already reported as invalid).
    pub shards: Option<(TokenStream, u16)>,
    /// `shard_by = "field, field"`.
    pub shard_by: Option<LitStr>,
    /// `shard_fn = "path"`: the function that computes the shard instead of FNV-1a.
    pub shard_fn: Option<syn::Path>,
    /// `pk = ["a", "b"]`: a multi-attribute partition key (the fields, with the list's tokens).
    pub pk_list: Option<(TokenStream, Vec<LitStr>)>,
    /// `sk = ["a", "b"]`: a multi-attribute sort key.
    pub sk_list: Option<(TokenStream, Vec<LitStr>)>,
}

impl IndexAttr {
    pub fn label(&self) -> String {
        match self.kind {
            IndexKind::Global => format!("gsi{}", self.number),
            IndexKind::Local => format!("lsi{}", self.number),
        }
    }

    pub fn index_name(&self) -> String {
        self.index.as_ref().map_or_else(|| self.label().to_uppercase(), LitStr::value)
    }

    pub fn pk_attr_name(&self) -> Option<String> {
        match self.kind {
            IndexKind::Global => {
                Some(self.pk_attr.as_ref().map_or_else(|| format!("{}PK", self.label().to_uppercase()), LitStr::value))
            }
            IndexKind::Local => None,
        }
    }

    pub fn sk_attr_name(&self) -> Option<String> {
        self.sk.as_ref()?;
        Some(self.sk_attr.as_ref().map_or_else(|| format!("{}SK", self.label().to_uppercase()), LitStr::value))
    }
}

pub struct ContainerAttrs {
    pub pk: Option<(TokenStream, Template)>,
    /// A `#[pk]` attribute was present, valid or not (no "missing `#[pk]`" error then).
    pub pk_seen: bool,
    pub sk: Option<(TokenStream, Template)>,
    /// A `#[sk]` attribute was present, valid or not.
    pub sk_seen: bool,
    pub indexes: Vec<IndexAttr>,
    pub rename_all: Option<RenameRule>,
    pub type_attr: Option<LitStr>,
    pub type_name: Option<LitStr>,
    pub query: Option<LitStr>,
    pub constant_pk: Option<TokenStream>,
    /// `type_attr = false`: no type attribute is written (the keys identify the entity).
    pub no_type_attr: Option<TokenStream>,
    /// `key_attributes = false`: the key fields are kept in the keys only, not as attributes.
    pub no_key_attributes: Option<TokenStream>,
    /// `owns_partition = true`: no other entity's items share this entity's partitions.
    pub owns_partition: Option<TokenStream>,
    pub krate: Option<syn::Path>,
    pub pk_attr: Option<LitStr>,
    pub sk_attr: Option<LitStr>,
    /// `shards = N` of the table's partition key, with its tokens.
    pub shards: Option<(TokenStream, u16)>,
    /// `shard_by = "field, field"` of the table's partition key.
    pub shard_by: Option<LitStr>,
    /// `shard_fn = "path"` of the table's partition key.
    pub shard_fn: Option<syn::Path>,
    /// `tenant = "field"`: the field that leads every partition key.
    pub tenant: Option<LitStr>,
    /// `tenant_shared`: items every tenant may use.
    pub tenant_shared: Option<TokenStream>,
    /// `validate = "path"`: the struct's validator.
    pub validate: Option<syn::Path>,
}

/// `shard_fn = "path"`: a path to a function.
fn shard_fn_value(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> Option<syn::Path> {
    let lit = lit_value(cx, meta)?;
    match lit.parse::<syn::Path>() {
        Ok(path) => Some(path),
        Err(_) => {
            cx.error_spanned_by(
                &lit,
                format!(
                    "`shard_fn` must be a path to a function `fn(&[&str], u32) -> u32`, such as \"crate::shard_of_id\", \
                     found `{}`",
                    lit.value()
                ),
            );
            None
        }
    }
}

/// `shards = N`: a number from 2 to 512.
fn shards_value(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> Option<u16> {
    let lit = match meta.value().and_then(|v| v.parse::<syn::LitInt>()) {
        Ok(lit) => lit,
        Err(e) => {
            cx.syn_error(e);
            return None;
        }
    };
    match lit.base10_parse::<u16>() {
        Ok(n) if (MIN_SHARDS..=MAX_SHARDS).contains(&n) => Some(n),
        _ => {
            cx.error_spanned_by(
                &lit,
                format!(
                    "`shards` must be a number from {MIN_SHARDS} to {MAX_SHARDS}, found `{lit}`: one shard is an \
                     unsharded key, and a query reads every shard"
                ),
            );
            None
        }
    }
}

/// `gsi7` → (Global, 7); `lsi2` → (Local, 2).
fn index_attr_number(ident: &Ident) -> Option<(IndexKind, &'static str, u8)> {
    let name = ident.to_string();
    let (kind, prefix, digits) = if let Some(d) = name.strip_prefix("gsi") {
        (IndexKind::Global, "gsi", d)
    } else if let Some(d) = name.strip_prefix("lsi") {
        (IndexKind::Local, "lsi", d)
    } else {
        return None;
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((kind, prefix, digits.parse().unwrap_or(u8::MAX)))
}

/// A key of an index: a template, or (`["a", "b"]`) the fields of a multi-attribute key.
enum KeyValue {
    Template(Template),
    List(TokenStream, Vec<LitStr>),
}

/// `pk = "T#<t>"` or `pk = ["a", "b"]`.
fn key_value(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> Option<KeyValue> {
    let input = match meta.value() {
        Ok(v) => v,
        Err(e) => {
            cx.syn_error(e);
            return None;
        }
    };
    if !input.peek(syn::token::Bracket) {
        let lit = match input.parse::<LitStr>() {
            Ok(lit) => lit,
            Err(e) => {
                cx.syn_error(e);
                return None;
            }
        };
        return match Template::parse(&lit) {
            Ok(t) => Some(KeyValue::Template(t)),
            Err(e) => {
                cx.syn_error(e);
                None
            }
        };
    }
    let array = bracketed_list(input);
    match array {
        Ok((array, elems)) => {
            let mut out = Vec::new();
            for e in &elems {
                match e {
                    syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(l), .. }) => out.push(l.clone()),
                    other => cx.error_spanned_by(other, "expected a field name in quotes, such as `\"region\"`"),
                }
            }
            if out.is_empty() {
                cx.error_spanned_by(
                    &array,
                    "a multi-attribute key names 1 to 4 fields, such as `[\"tournament_id\", \"region\"]`",
                );
                return None;
            }
            Some(KeyValue::List(proc_macro2::TokenTree::Group(array).into(), out))
        }
        Err(e) => {
            cx.syn_error(e);
            None
        }
    }
}

fn lit_value(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> Option<LitStr> {
    match meta.value().and_then(|v| v.parse::<LitStr>()) {
        Ok(lit) => Some(lit),
        Err(e) => {
            cx.syn_error(e);
            None
        }
    }
}

fn key_template(cx: &Ctxt, attr: &Attribute, name: &str) -> Option<Template> {
    match &attr.meta {
        Meta::NameValue(nv) => match &nv.value {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(lit), .. }) => match Template::parse(lit) {
                Ok(t) => Some(t),
                Err(e) => {
                    cx.syn_error(e);
                    None
                }
            },
            syn::Expr::Array(a) => {
                cx.error_spanned_by(
                    a,
                    format!(
                        "a list of fields keys a global secondary index only (`#[gsi1(pk = [..], sk = [..])]`): \
                         DynamoDB's multi-attribute keys are not for the table's key; write `#[{name} = \"PREFIX#<field>\"]`"
                    ),
                );
                None
            }
            other => {
                cx.error_spanned_by(other, format!("expected a string: `#[{name} = \"PREFIX#<field>\"]`"));
                None
            }
        },
        other => {
            cx.error_spanned_by(other, format!("expected `#[{name} = \"PREFIX#<field>\"]`"));
            None
        }
    }
}

/// Checks that `lit` holds a non-empty value.
fn non_empty(cx: &Ctxt, lit: LitStr, what: &str) -> Option<LitStr> {
    if lit.value().is_empty() {
        cx.error_spanned_by(&lit, format!("`{what}` cannot be empty"));
        None
    } else {
        Some(lit)
    }
}

fn query_name(cx: &Ctxt, lit: LitStr) -> Option<LitStr> {
    if syn::parse_str::<Ident>(&format!("query_{}", lit.value())).is_ok() {
        Some(lit)
    } else {
        cx.error_spanned_by(&lit, "`query` must be a snake_case name, such as \"by_room\": it becomes `query_by_room`");
        None
    }
}

fn index_attr(cx: &Ctxt, attr: &Attribute, ident: &Ident, kind: IndexKind, number: u8) -> Option<IndexAttr> {
    let mut pk = Attr::none(PK);
    let mut sk = Attr::none(SK);
    let mut index = Attr::none(INDEX);
    let mut pk_attr = Attr::none(PK_ATTR);
    let mut sk_attr = Attr::none(SK_ATTR);
    let mut query = Attr::none(QUERY);
    let mut projection = Attr::none(PROJECTION);
    let mut include = Attr::none(INCLUDE);
    let mut shards = Attr::none(SHARDS);
    let mut shard_by = Attr::none(SHARD_BY);
    let mut shard_fn = Attr::none(SHARD_FN);
    let mut pk_list = Attr::none(PK);
    let mut sk_list = Attr::none(SK);
    // A list on a local index, reported: not also "needs `sk`".
    let mut local_list = false;
    let allowed = match kind {
        IndexKind::Global => {
            "`pk`, `sk`, `index`, `pk_attr`, `sk_attr`, `query`, `projection`, `include`, `shards`, `shard_by` or \
             `shard_fn`"
        }
        IndexKind::Local => {
            "`sk`, `index`, `sk_attr`, `query`, `projection` or `include` (a local index shares the table's partition key)"
        }
    };
    let result = attr.parse_nested_meta(|meta| {
        let span = meta.path.clone();
        if meta.path.is_ident(PK) && kind == IndexKind::Global {
            match key_value(cx, &meta) {
                Some(KeyValue::Template(t)) => pk.set(cx, span, t),
                Some(KeyValue::List(tokens, l)) => pk_list.set(cx, span, (tokens, l)),
                None => {}
            }
        } else if meta.path.is_ident(SK) {
            match key_value(cx, &meta) {
                Some(KeyValue::Template(t)) => sk.set(cx, span, t),
                Some(KeyValue::List(tokens, _)) if kind == IndexKind::Local => {
                    local_list = true;
                    cx.error_spanned_by(
                        tokens,
                        format!(
                            "a list of fields keys a global secondary index only: DynamoDB's multi-attribute keys are \
                             not for local indexes; write `#[{ident}(sk = \"PREFIX#<field>\")]`, or make it a `gsiN`"
                        ),
                    );
                }
                Some(KeyValue::List(tokens, l)) => sk_list.set(cx, span, (tokens, l)),
                None => {}
            }
        } else if meta.path.is_ident(INDEX) {
            if let Some(l) = lit_value(cx, &meta).and_then(|l| non_empty(cx, l, INDEX)) {
                index.set(cx, span, l);
            }
        } else if meta.path.is_ident(PK_ATTR) && kind == IndexKind::Global {
            if let Some(l) = lit_value(cx, &meta).and_then(|l| non_empty(cx, l, PK_ATTR)) {
                pk_attr.set(cx, span, l);
            }
        } else if meta.path.is_ident(SK_ATTR) {
            if let Some(l) = lit_value(cx, &meta).and_then(|l| non_empty(cx, l, SK_ATTR)) {
                sk_attr.set(cx, span, l);
            }
        } else if meta.path.is_ident(QUERY) {
            if let Some(l) = lit_value(cx, &meta).and_then(|l| query_name(cx, l)) {
                query.set(cx, span, l);
            }
        } else if meta.path.is_ident(PROJECTION) {
            if let Some(l) = lit_value(cx, &meta) {
                projection.set(cx, span, l);
            }
        } else if meta.path.is_ident(INCLUDE) {
            if let Some(l) = lit_value(cx, &meta) {
                include.set(cx, span, l);
            }
        } else if meta.path.is_ident(SHARDS) && kind == IndexKind::Global {
            // An invalid count (reported) is kept as 0: the key is not also "without a count".
            let n = shards_value(cx, &meta).unwrap_or(0);
            shards.set(cx, span, n);
        } else if meta.path.is_ident(SHARD_BY) && kind == IndexKind::Global {
            if let Some(l) = lit_value(cx, &meta) {
                shard_by.set(cx, span, l);
            }
        } else if meta.path.is_ident(SHARD_FN) && kind == IndexKind::Global {
            if let Some(path) = shard_fn_value(cx, &meta) {
                shard_fn.set(cx, span, path);
            }
        } else if (meta.path.is_ident(SHARDS) || meta.path.is_ident(SHARD_BY) || meta.path.is_ident(SHARD_FN))
            && kind == IndexKind::Local
        {
            cx.error_spanned_by(
                &meta.path,
                format!(
                    "a local index shares the table's partition key, so it cannot be sharded on its own: shard the \
                     table's partition key (`#[entity(shards = N, shard_by = \"..\")]`) and `#[{ident}]` reads its shards"
                ),
            );
            let _ = meta.value().and_then(|v| v.parse::<syn::Expr>());
        } else {
            let key = meta.path.get_ident().map_or_else(|| "?".to_owned(), Ident::to_string);
            cx.error_spanned_by(&meta.path, format!("unknown key `{key}` in `#[{ident}(..)]`: expected {allowed}"));
            // Skip the value, if any, so that the next key is still read.
            if meta.input.peek(syn::Token![=]) {
                let _ = meta.value().and_then(|v| v.parse::<syn::Expr>());
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        cx.syn_error(e);
    }
    let index_attr = IndexAttr {
        kind,
        number,
        path: ident.clone(),
        pk: pk.get().map(|(_, t)| t),
        sk: sk.get().map(|(_, t)| t),
        index: index.get().map(|(_, l)| l),
        pk_attr: pk_attr.get().map(|(_, l)| l),
        sk_attr: sk_attr.get().map(|(_, l)| l),
        query: query.get().map(|(_, l)| l),
        projection: projection.get().map(|(_, l)| l),
        include: include.get().map(|(_, l)| l),
        shards: shards.get(),
        shard_by: shard_by.get().map(|(_, l)| l),
        shard_fn: shard_fn.get().map(|(_, p)| p),
        pk_list: pk_list.get().map(|(_, l)| l),
        sk_list: sk_list.get().map(|(_, l)| l),
    };
    match kind {
        IndexKind::Global if index_attr.pk.is_none() && index_attr.pk_list.is_none() => {
            cx.error_spanned_by(
                attr,
                format!("`#[{ident}(..)]` needs `pk = \"...\"`: a global index has its own partition key"),
            );
            None
        }
        IndexKind::Local if local_list => None,
        IndexKind::Local if index_attr.sk.is_none() => {
            cx.error_spanned_by(
                attr,
                format!("`#[{ident}(..)]` needs `sk = \"...\"`: a local index is another sort key"),
            );
            None
        }
        _ => Some(index_attr),
    }
}

fn entity_attr(cx: &Ctxt, attr: &Attribute, out: &mut EntityAttrs) {
    let result = attr.parse_nested_meta(|meta| {
        let span = meta.path.clone();
        if meta.path.is_ident(RENAME_ALL) {
            if let Some(lit) = lit_value(cx, &meta) {
                match RenameRule::from_str(&lit.value()) {
                    Some(rule) => out.rename_all.set(cx, span, rule),
                    None => cx.error_spanned_by(
                        &lit,
                        format!("unknown `rename_all` rule `{}`: expected one of {}", lit.value(), RenameRule::names()),
                    ),
                }
            }
        } else if meta.path.is_ident(TYPE_ATTR) {
            // `type_attr = false`: none at all; else the attribute's name.
            let value = meta.value().and_then(|v| v.parse::<syn::Lit>());
            match value {
                Ok(syn::Lit::Bool(b)) if !b.value => out.no_type_attr.set(cx, span, ()),
                Ok(syn::Lit::Str(l)) => {
                    if let Some(l) = non_empty(cx, l, TYPE_ATTR) {
                        out.type_attr.set(cx, span, l);
                    }
                }
                Ok(other) => cx.error_spanned_by(
                    &other,
                    "`type_attr` is the name of the type attribute (\"Type\"), or `false` for an entity that writes none",
                ),
                Err(e) => cx.syn_error(e),
            }
        } else if meta.path.is_ident(KEY_ATTRIBUTES) {
            match meta.value().and_then(|v| v.parse::<syn::LitBool>()) {
                Ok(b) if !b.value => out.no_key_attributes.set(cx, span, ()),
                Ok(b) => cx.error_spanned_by(
                    &b,
                    "key fields are written as attributes of their own by default: only `key_attributes = false` changes it",
                ),
                Err(e) => cx.syn_error(e),
            }
        } else if meta.path.is_ident(OWNS_PARTITION) {
            match meta.value().and_then(|v| v.parse::<syn::LitBool>()) {
                Ok(b) if b.value => out.owns_partition.set(cx, span, ()),
                Ok(b) => cx.error_spanned_by(
                    &b,
                    "an entity shares its partitions with others by default: only `owns_partition = true` changes it",
                ),
                Err(e) => cx.syn_error(e),
            }
        } else if meta.path.is_ident(TYPE_NAME) {
            if let Some(l) = lit_value(cx, &meta).and_then(|l| non_empty(cx, l, TYPE_NAME)) {
                out.type_name.set(cx, span, l);
            }
        } else if meta.path.is_ident(QUERY) {
            if let Some(l) = lit_value(cx, &meta).and_then(|l| query_name(cx, l)) {
                out.query.set(cx, span, l);
            }
        } else if meta.path.is_ident(PK_ATTR) {
            if let Some(l) = lit_value(cx, &meta).and_then(|l| non_empty(cx, l, PK_ATTR)) {
                out.pk_attr.set(cx, span, l);
            }
        } else if meta.path.is_ident(SK_ATTR) {
            if let Some(l) = lit_value(cx, &meta).and_then(|l| non_empty(cx, l, SK_ATTR)) {
                out.sk_attr.set(cx, span, l);
            }
        } else if meta.path.is_ident(CONSTANT_PK) {
            out.constant_pk.set(cx, span, ());
        } else if meta.path.is_ident(SHARDS) {
            let n = shards_value(cx, &meta).unwrap_or(0);
            out.shards.set(cx, span, n);
        } else if meta.path.is_ident(SHARD_BY) {
            if let Some(l) = lit_value(cx, &meta) {
                out.shard_by.set(cx, span, l);
            }
        } else if meta.path.is_ident(SHARD_FN) {
            if let Some(path) = shard_fn_value(cx, &meta) {
                out.shard_fn.set(cx, span, path);
            }
        } else if meta.path.is_ident(TENANT) {
            if let Some(l) = lit_value(cx, &meta).and_then(|l| non_empty(cx, l, TENANT)) {
                out.tenant.set(cx, span, l);
            }
        } else if meta.path.is_ident(TENANT_SHARED) {
            out.tenant_shared.set(cx, span, ());
        } else if meta.path.is_ident(VALIDATE) {
            if let Some(path) = path_value(cx, &meta, VALIDATE) {
                out.validate.set(cx, span, path);
            }
        } else if meta.path.is_ident(CRATE) {
            if let Some(lit) = lit_value(cx, &meta) {
                match lit.parse::<syn::Path>() {
                    Ok(path) => out.krate.set(cx, span, path),
                    Err(_) => cx.error_spanned_by(&lit, "`crate` must be a path, such as \"::dynamo_entity\""),
                }
            }
        } else {
            let key = meta.path.get_ident().map_or_else(|| "?".to_owned(), Ident::to_string);
            cx.error_spanned_by(
                &meta.path,
                format!(
                    "unknown key `{key}` in `#[entity(..)]` on a struct: expected `rename_all`, `type_attr`, \
                     `type_name`, `query`, `pk_attr`, `sk_attr`, `constant_pk`, `key_attributes`, `owns_partition`, `shards`, \
                     `shard_by`, `shard_fn`, `tenant`, `tenant_shared` or `crate`"
                ),
            );
            if meta.input.peek(syn::Token![=]) {
                let _ = meta.value().and_then(|v| v.parse::<syn::Expr>());
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        cx.syn_error(e);
    }
}

struct EntityAttrs {
    rename_all: Attr<RenameRule>,
    type_attr: Attr<LitStr>,
    type_name: Attr<LitStr>,
    query: Attr<LitStr>,
    constant_pk: Attr<()>,
    no_type_attr: Attr<()>,
    no_key_attributes: Attr<()>,
    owns_partition: Attr<()>,
    krate: Attr<syn::Path>,
    pk_attr: Attr<LitStr>,
    sk_attr: Attr<LitStr>,
    shards: Attr<u16>,
    shard_by: Attr<LitStr>,
    shard_fn: Attr<syn::Path>,
    tenant: Attr<LitStr>,
    tenant_shared: Attr<()>,
    validate: Attr<syn::Path>,
}

impl ContainerAttrs {
    pub fn parse(cx: &Ctxt, attrs: &[Attribute]) -> ContainerAttrs {
        let mut pk = Attr::none("#[pk]");
        let mut sk = Attr::none("#[sk]");
        let mut indexes: Vec<IndexAttr> = Vec::new();
        let mut pk_seen = false;
        let mut sk_seen = false;
        let mut ea = EntityAttrs {
            rename_all: Attr::none(RENAME_ALL),
            type_attr: Attr::none(TYPE_ATTR),
            type_name: Attr::none(TYPE_NAME),
            query: Attr::none(QUERY),
            constant_pk: Attr::none(CONSTANT_PK),
            no_type_attr: Attr::none(TYPE_ATTR),
            no_key_attributes: Attr::none(KEY_ATTRIBUTES),
            owns_partition: Attr::none(OWNS_PARTITION),
            krate: Attr::none(CRATE),
            pk_attr: Attr::none(PK_ATTR),
            sk_attr: Attr::none(SK_ATTR),
            shards: Attr::none(SHARDS),
            shard_by: Attr::none(SHARD_BY),
            shard_fn: Attr::none(SHARD_FN),
            tenant: Attr::none(TENANT),
            tenant_shared: Attr::none(TENANT_SHARED),
            validate: Attr::none(VALIDATE),
        };
        for attr in attrs {
            let Some(ident) = attr.path().get_ident() else { continue };
            if ident == PK {
                pk_seen = true;
                if let Some(t) = key_template(cx, attr, PK) {
                    pk.set(cx, attr, t);
                }
            } else if ident == SK {
                sk_seen = true;
                if let Some(t) = key_template(cx, attr, SK) {
                    sk.set(cx, attr, t);
                }
            } else if ident == ENTITY {
                entity_attr(cx, attr, &mut ea);
            } else if ident == TTL || ident == VERSION || ident == UNIQUE || ident == CREATED_AT || ident == UPDATED_AT
            {
                cx.error_spanned_by(attr, format!("`#[{ident}]` goes on a field, not on the struct"));
            } else if let Some((kind, prefix, number)) = index_attr_number(ident) {
                let max = if kind == IndexKind::Global { MAX_GSI } else { MAX_LSI };
                if number == 0 || number > max {
                    let what = if kind == IndexKind::Global { "global" } else { "local" };
                    cx.error_spanned_by(
                        ident,
                        format!(
                            "`#[{ident}]` is out of range: DynamoDB allows at most {max} {what} secondary indexes \
                             per table, written `#[{prefix}1]` to `#[{prefix}{max}]`"
                        ),
                    );
                    continue;
                }
                if let Some(first) = indexes.iter().find(|i| i.kind == kind && i.number == number) {
                    cx.error_spanned_by(ident, format!("duplicate `#[{ident}]`: each index is declared once"));
                    cx.error_spanned_by(&first.path, format!("note: `#[{ident}]` is first declared here"));
                    continue;
                }
                if let Some(index) = index_attr(cx, attr, ident, kind, number) {
                    indexes.push(index);
                }
            }
        }
        ContainerAttrs {
            pk: pk.get(),
            pk_seen,
            sk: sk.get(),
            sk_seen,
            indexes,
            rename_all: ea.rename_all.get().map(|(_, r)| r),
            type_attr: ea.type_attr.get().map(|(_, l)| l),
            type_name: ea.type_name.get().map(|(_, l)| l),
            query: ea.query.get().map(|(_, l)| l),
            constant_pk: ea.constant_pk.get().map(|(s, ())| s),
            no_type_attr: ea.no_type_attr.get().map(|(s, ())| s),
            no_key_attributes: ea.no_key_attributes.get().map(|(s, ())| s),
            owns_partition: ea.owns_partition.get().map(|(s, ())| s),
            krate: ea.krate.get().map(|(_, p)| p),
            pk_attr: ea.pk_attr.get().map(|(_, l)| l),
            sk_attr: ea.sk_attr.get().map(|(_, l)| l),
            shards: ea.shards.get(),
            shard_by: ea.shard_by.get().map(|(_, l)| l),
            shard_fn: ea.shard_fn.get().map(|(_, p)| p),
            tenant: ea.tenant.get().map(|(_, l)| l),
            tenant_shared: ea.tenant_shared.get().map(|(s, ())| s),
            validate: ea.validate.get().map(|(_, p)| p),
        }
    }
}

#[derive(Default)]
pub struct FieldAttrs {
    pub rename: Option<LitStr>,
    pub skip: Option<TokenStream>,
    pub ttl: Option<TokenStream>,
    pub version: Option<TokenStream>,
    /// `#[unique]`: no two items of the entity hold the same value.
    pub unique: Option<TokenStream>,
    /// `#[encrypt]`: encrypted and signed on the client (feature `encryption`).
    pub encrypt: Option<TokenStream>,
    /// `default` (`None`: `Default::default()`) or `default = "path"`, with its tokens.
    pub default: Option<(TokenStream, Option<syn::Path>)>,
    /// `with = "module"`: the module whose `encode`/`decode` store the field.
    pub with: Option<(TokenStream, syn::Path)>,
    /// `key_attribute = false | true` (bare: `true`): whether this key field is written as an
    /// attribute of its own, against the entity's `key_attributes`.
    pub key_attribute: Option<(TokenStream, bool)>,
    /// `#[created_at]`: the time of the write that created the item.
    pub created_at: Option<TokenStream>,
    /// `#[updated_at]`: the time of the last write of the item.
    pub updated_at: Option<TokenStream>,
    /// `validate = "path"`: the field's validator.
    pub validate: Option<(TokenStream, syn::Path)>,
}

/// A string literal holding a path (`default = "path"`, `with = "module"`).
fn path_value(cx: &Ctxt, meta: &ParseNestedMeta<'_>, what: &str) -> Option<syn::Path> {
    let lit = lit_value(cx, meta)?;
    match lit.parse::<syn::Path>() {
        Ok(path) => Some(path),
        Err(_) => {
            cx.error_spanned_by(
                &lit,
                format!(
                    "`{what}` must be a path, such as \"{}\"",
                    match what {
                        WITH => "dynamo_entity::time::epoch_millis",
                        VALIDATE => "crate::valid_email",
                        _ => "Self::default_status",
                    }
                ),
            );
            None
        }
    }
}

impl FieldAttrs {
    pub fn parse(cx: &Ctxt, attrs: &[Attribute]) -> FieldAttrs {
        let mut rename = Attr::none(RENAME);
        let mut skip = Attr::none(SKIP);
        let mut ttl = Attr::none("#[ttl]");
        let mut version = Attr::none("#[version]");
        let mut unique = Attr::none("#[unique]");
        let mut encrypt = Attr::none("#[encrypt]");
        let mut default = Attr::none(DEFAULT);
        let mut with = Attr::none(WITH);
        let mut key_attribute = Attr::none(KEY_ATTRIBUTE);
        let mut created_at = Attr::none("#[created_at]");
        let mut updated_at = Attr::none("#[updated_at]");
        let mut validate = Attr::none(VALIDATE);
        for attr in attrs {
            let Some(ident) = attr.path().get_ident() else { continue };
            if ident == ENCRYPT {
                if let Err(e) = attr.meta.require_path_only() {
                    cx.syn_error(syn::Error::new(
                        e.span(),
                        "expected a bare `#[encrypt]`: the field is encrypted and signed with the keyring of \
                         `Table::with_encryption`",
                    ));
                } else {
                    encrypt.set(cx, attr, ());
                }
            } else if ident == CREATED_AT || ident == UPDATED_AT {
                if let Err(e) = attr.meta.require_path_only() {
                    cx.syn_error(syn::Error::new(
                        e.span(),
                        format!("expected a bare `#[{ident}]`: the library fills the field on write"),
                    ));
                } else if ident == CREATED_AT {
                    created_at.set(cx, attr, ());
                } else {
                    updated_at.set(cx, attr, ());
                }
            } else if ident == TTL || ident == VERSION || ident == UNIQUE {
                if let Err(e) = attr.meta.require_path_only() {
                    let note = if ident == UNIQUE {
                        ": a value is unique among the entity's items (within its tenant, for an entity with \
                         `#[entity(tenant = ..)]`)"
                    } else {
                        ""
                    };
                    cx.syn_error(syn::Error::new(e.span(), format!("expected a bare `#[{ident}]`{note}")));
                } else if ident == TTL {
                    ttl.set(cx, attr, ());
                } else if ident == VERSION {
                    version.set(cx, attr, ());
                } else {
                    unique.set(cx, attr, ());
                }
            } else if ident == ENTITY {
                let result = attr.parse_nested_meta(|meta| {
                    let span = meta.path.clone();
                    if meta.path.is_ident(RENAME) {
                        if let Some(l) = lit_value(cx, &meta).and_then(|l| non_empty(cx, l, RENAME)) {
                            rename.set(cx, span, l);
                        }
                    } else if meta.path.is_ident(SKIP) {
                        skip.set(cx, span, ());
                    } else if meta.path.is_ident(DEFAULT) {
                        if meta.input.peek(syn::Token![=]) {
                            if let Some(path) = path_value(cx, &meta, DEFAULT) {
                                default.set(cx, span, Some(path));
                            }
                        } else {
                            default.set(cx, span, None);
                        }
                    } else if meta.path.is_ident(WITH) {
                        if let Some(path) = path_value(cx, &meta, WITH) {
                            with.set(cx, span, path);
                        }
                    } else if meta.path.is_ident(VALIDATE) {
                        if let Some(path) = path_value(cx, &meta, VALIDATE) {
                            validate.set(cx, span, path);
                        }
                    } else if meta.path.is_ident(KEY_ATTRIBUTE) {
                        if meta.input.peek(syn::Token![=]) {
                            match meta.value()?.parse::<syn::LitBool>() {
                                Ok(b) => key_attribute.set(cx, span, b.value),
                                Err(e) => cx.syn_error(syn::Error::new(
                                    e.span(),
                                    "`key_attribute` is `true` or `false`: whether this key field is also written \
                                     as an attribute of its own",
                                )),
                            }
                        } else {
                            key_attribute.set(cx, span, true);
                        }
                    } else {
                        let key = meta.path.get_ident().map_or_else(|| "?".to_owned(), Ident::to_string);
                        cx.error_spanned_by(
                            &meta.path,
                            format!(
                                "unknown key `{key}` in `#[entity(..)]` on a field: expected `rename`, `skip`, \
                                 `default`, `with` or `key_attribute`"
                            ),
                        );
                        if meta.input.peek(syn::Token![=]) {
                            let _ = meta.value().and_then(|v| v.parse::<syn::Expr>());
                        }
                    }
                    Ok(())
                });
                if let Err(e) = result {
                    cx.syn_error(e);
                }
            } else if ident == PK || ident == SK || index_attr_number(ident).is_some() {
                cx.error_spanned_by(attr, format!("`#[{ident}]` goes on the struct, not on a field"));
            }
        }
        FieldAttrs {
            rename: rename.get().map(|(_, l)| l),
            skip: skip.get().map(|(s, ())| s),
            ttl: ttl.get().map(|(s, ())| s),
            version: version.get().map(|(s, ())| s),
            unique: unique.get().map(|(s, ())| s),
            encrypt: encrypt.get().map(|(s, ())| s),
            default: default.get(),
            with: with.get(),
            key_attribute: key_attribute.get(),
            created_at: created_at.get().map(|(s, ())| s),
            updated_at: updated_at.get().map(|(s, ())| s),
            validate: validate.get(),
        }
    }
}

/// A `[..]` list of expressions, with its brackets: parsed by hand, as `syn::ExprArray` needs
/// syn's `full` feature, which nothing else of this crate does (a user's build without another
/// crate enabling it would fail).
pub(crate) fn bracketed_list(
    input: syn::parse::ParseStream<'_>,
) -> syn::Result<(proc_macro2::Group, syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>)> {
    match input.parse::<proc_macro2::TokenTree>()? {
        proc_macro2::TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::Bracket => {
            let elems = syn::parse::Parser::parse2(
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
                g.stream(),
            )?;
            Ok((g, elems))
        }
        other => {
            Err(syn::Error::new_spanned(other, "expected a string or a list of field names, such as `[\"region\"]`"))
        }
    }
}
