//! Multi-attribute index keys (DynamoDB, November 2025): `#[gsi1(pk = ["a", "b"], sk = ["c",
//! "d"])]` keys a global index on up to four fields' own attributes per side, each with its
//! native type. Each listed field becomes a key on the field's own attribute (as
//! `pk = "<a>", pk_attr = "a"` does for one field, see `valid::Reuse::Field`): nothing else is
//! written, and the expansion of entities without such an index does not change.

use syn::LitStr;

use crate::ast::Input;
use crate::attr::IndexAttr;
use crate::ctxt::Ctxt;
use crate::template::Template;
use crate::valid::{Key, Reuse};

/// DynamoDB's limit of attributes per side of a multi-attribute key.
pub const MAX_ATTRS: usize = 4;

/// The keys of a multi-attribute index: (partition keys, sort keys), each a key on a field's
/// own attribute; `None` when the index attribute has no list (or the lists are unusable,
/// reported).
pub fn keys(cx: &Ctxt, input: &Input<'_>, a: &IndexAttr) -> Option<(Vec<Key>, Vec<Key>)> {
    if a.pk_list.is_none() && a.sk_list.is_none() {
        return None;
    }
    let mut ok = true;
    // A template and a list in one index: one kind of key per index.
    for (template, list, side) in [(&a.pk, &a.pk_list, "pk"), (&a.sk, &a.sk_list, "sk")] {
        if let Some(t) = template {
            let other = if list.is_some() { "a list" } else { "the other side's list" };
            cx.error_spanned_by(
                &t.lit,
                format!(
                    "`{side} = \"{}\"` is a key template, but this index also has {other}: a multi-attribute index \
                     names fields on both sides (`pk = [\"a\", \"b\"], sk = [\"c\"]`); a template keys an index \
                     with one attribute of key text",
                    t.source
                ),
            );
            ok = false;
        }
    }
    for (lit, name) in [(&a.pk_attr, "pk_attr"), (&a.sk_attr, "sk_attr")] {
        if let Some(l) = lit {
            cx.error_spanned_by(
                l,
                format!("`{name}` names the attribute of a template key; a multi-attribute key uses each listed field's own attribute"),
            );
            ok = false;
        }
    }
    if let Some((at, _)) = &a.shards {
        cx.error_spanned_by(at, "a multi-attribute key is the fields' own attributes: it cannot be sharded");
        ok = false;
    }
    if a.pk_list.is_none() && a.pk.is_none() {
        cx.error_spanned_by(
            &a.path,
            "a multi-attribute sort key needs a multi-attribute partition key: `pk = [\"a\"]`",
        );
        ok = false;
    }
    let mut seen: Vec<String> = Vec::new();
    let mut side = |list: &Option<(proc_macro2::TokenStream, Vec<LitStr>)>| -> Vec<Key> {
        let mut out = Vec::new();
        let Some((_, lits)) = list else { return out };
        for (n, lit) in lits.iter().enumerate() {
            let name = lit.value();
            if n == MAX_ATTRS {
                cx.error_spanned_by(
                    lit,
                    format!(
                        "a fifth field, `{name}`: DynamoDB keys an index on at most {MAX_ATTRS} attributes per side"
                    ),
                );
                ok = false;
                continue;
            }
            if name.contains(['<', '>', '#']) {
                cx.error_spanned_by(
                    lit,
                    format!(
                        "`{name}` is a key template inside a list: a list names fields (`\"region\"`), each keying \
                         the index with its own attribute; a template (`pk = \"T#<t>\"`) is one attribute of key \
                         text, not part of a list"
                    ),
                );
                ok = false;
                continue;
            }
            if seen.contains(&name) {
                cx.error_spanned_by(lit, format!("`{name}` is listed twice: each attribute keys an index once"));
                ok = false;
                continue;
            }
            seen.push(name.clone());
            let Some(i) = input.fields.iter().position(|f| f.name == name) else {
                let known = input.fields.iter().map(|f| format!("`{}`", f.name)).collect::<Vec<_>>().join(", ");
                cx.error_spanned_by(lit, format!("unknown field `{name}`; `{}` has {known}", input.ident));
                ok = false;
                continue;
            };
            let f = &input.fields[i];
            if f.attrs.skip.is_some() {
                cx.error_spanned_by(
                    lit,
                    format!("`{name}` is `#[entity(skip)]`: a skipped field is not stored, so it cannot key an index"),
                );
                ok = false;
                continue;
            }
            let template = match Template::parse(&LitStr::new(&format!("<{name}>"), lit.span())) {
                Ok(t) => t,
                Err(e) => {
                    cx.syn_error(e);
                    ok = false;
                    continue;
                }
            };
            out.push(Key {
                attr: f.attr_name.clone(),
                template,
                fields: vec![(i, None)],
                reuse: Some(Reuse::Field(i)),
                shard: None,
            });
        }
        out
    };
    let pk = side(&a.pk_list);
    let sk = side(&a.sk_list);
    (ok && !pk.is_empty()).then_some((pk, sk))
}
