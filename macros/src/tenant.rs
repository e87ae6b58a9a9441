//! `#[entity(tenant = "field")]` and `#[entity(tenant_shared)]`: the tenant field leads the
//! partition key of the table and of every index, so that a tenant handle and an IAM policy
//! (`dynamodb:LeadingKeys`) can tell every item's tenant from its partition key alone.

use crate::ast::Input;
use crate::ctxt::Ctxt;
use crate::template::Part;
use crate::valid::{Index, Key};

/// How the entity stands towards tenants (the runtime's `Tenancy`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Tenancy {
    Untenanted,
    Shared,
    /// The tenant field, by index.
    Field(usize),
}

/// Checks `tenant` and `tenant_shared` against the partition keys of the table and indexes.
pub fn check(cx: &Ctxt, input: &Input<'_>, pk: &Key, indexes: &[Index]) -> Tenancy {
    let attrs = &input.attrs;
    let Some(lit) = &attrs.tenant else {
        return if attrs.tenant_shared.is_some() { Tenancy::Shared } else { Tenancy::Untenanted };
    };
    if let Some(at) = &attrs.tenant_shared {
        cx.error_spanned_by(
            at,
            "`tenant_shared` marks items that every tenant may use, but `tenant` names their tenant: keep one",
        );
    }
    let name = lit.value();
    let Some(i) = input.fields.iter().position(|f| f.name == name) else {
        let known = input.fields.iter().map(|f| format!("`{}`", f.name)).collect::<Vec<_>>().join(", ");
        cx.error_spanned_by(
            lit,
            format!("`tenant` names `{name}`, which is not a field of `{}` (it has {known})", input.ident),
        );
        return Tenancy::Untenanted;
    };
    let field = &input.fields[i];
    if field.option_inner.is_some() {
        cx.error_spanned_by(
            lit,
            format!(
                "the tenant field `{name}` is an `Option`: every item belongs to a tenant, and a partition key \
                 cannot omit its first component; make it `{}`",
                quote::ToTokens::to_token_stream(field.key_ty())
            ),
        );
    }
    if field.attrs.skip.is_some() {
        cx.error_spanned_by(lit, format!("the tenant field `{name}` is `#[entity(skip)]`, but it leads every key"));
    }
    let mut keys: Vec<(String, &Key)> = vec![("the table's partition key".to_owned(), pk)];
    for index in indexes {
        if let Some(ipk) = &index.pk {
            keys.push((format!("the partition key of index `{}`", index.name), ipk));
        }
    }
    for (owner, key) in keys {
        let first = key.template.parts.iter().find(|p| !matches!(p, Part::Literal(_)));
        let problem = match first {
            Some(Part::Field { name: n, raw: false, .. }) if *n == name => continue,
            Some(Part::Field { name: n, raw: true, .. }) if *n == name => {
                cx.error_spanned_by(
                    &key.template.lit,
                    format!(
                        "the tenant field `{name}` cannot be raw in {owner} (`{}`): a raw value may hold `#`, so the \
                         tenant would not end where a tenant handle and the IAM policy's `dynamodb:LeadingKeys` \
                         pattern expect; write `<{name}>`",
                        key.template.source
                    ),
                );
                continue;
            }
            Some(Part::Field { name: n, .. }) => format!("its first placeholder is `<{n}>`"),
            Some(Part::Shard) => "its first placeholder is `<shard>`".to_owned(),
            Some(Part::Literal(_)) | None => "it has no placeholder".to_owned(),
        };
        cx.error_spanned_by(
            &key.template.lit,
            format!(
                "the tenant field `{name}` must be the first placeholder of {owner} (`{}`), but {problem}: a tenant \
                 handle and the IAM policy (`dynamodb:LeadingKeys`) find an item's tenant at the start of every \
                 partition key, such as `TENANT#<{name}>#...`",
                key.template.source
            ),
        );
    }
    Tenancy::Field(i)
}
