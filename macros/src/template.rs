//! The key-template language: literal text and `<field>` / `<field:N>` / `<field:raw>`
//! placeholders.

use syn::LitStr;

/// The widest zero-padded placeholder: `u128::MAX` has 39 digits.
pub const MAX_WIDTH: usize = 39;
/// `<field:unpadded>`: an integer in the shortest decimal form (width 0 in the model).
pub const UNPADDED: &str = "unpadded";

/// The reserved placeholder of a sharded partition key: `<shard>`.
pub const SHARD: &str = "shard";
/// The separators that may join `<shard>` to the placeholder before it (`<date>.<shard>`), as
/// well as `#`: shard numbers hold none of them.
pub const SHARD_JOINS: [&str; 3] = [".", "_", "-"];

#[derive(Clone, Debug)]
pub enum Part {
    Literal(String),
    /// `<shard>`: the shard number of a sharded partition key, zero-padded to the digits of
    /// `shards - 1` (`<shard:unpadded>`: in its shortest form, [`Template::shard_unpadded`]).
    Shard,
    /// `raw`: written without escaping (`<field:raw>`), only as the last part of a template.
    Field {
        name: String,
        width: Option<usize>,
        raw: bool,
    },
}

#[derive(Clone)]
pub struct Template {
    pub lit: LitStr,
    pub source: String,
    pub parts: Vec<Part>,
    /// `<shard:unpadded>`: the shard number without zero padding.
    pub shard_unpadded: bool,
}

impl Template {
    /// Parses a template, reporting the first mistake with the literal's span.
    pub fn parse(lit: &LitStr) -> syn::Result<Template> {
        let source = lit.value();
        let err = |msg: String| syn::Error::new(lit.span(), msg);
        if source.is_empty() {
            return Err(err("empty key template: DynamoDB rejects empty keys".into()));
        }
        let mut parts = Vec::new();
        let mut shard_unpadded = false;
        let mut literal = String::new();
        let mut chars = source.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            match c {
                '<' => {
                    let mut inner = String::new();
                    let mut closed = false;
                    for (_, c) in chars.by_ref() {
                        if c == '>' {
                            closed = true;
                            break;
                        }
                        if c == '<' {
                            return Err(err(format!("`<` inside a placeholder at byte {at} of `{source}`")));
                        }
                        inner.push(c);
                    }
                    if !closed {
                        return Err(err(format!(
                            "unclosed `<` at byte {at} of `{source}`: write placeholders as `<field>`, `<field:N>` or `<field:raw>`"
                        )));
                    }
                    if !literal.is_empty() {
                        parts.push(Part::Literal(std::mem::take(&mut literal)));
                    } else if matches!(parts.last(), Some(Part::Field { .. } | Part::Shard)) {
                        return Err(err(format!(
                            "two placeholders with no `#` between them in `{source}`: the key could not be \
                             split back into its fields; write `<a>#<b>`"
                        )));
                    }
                    let part = Self::placeholder(&inner, &source).map_err(err)?;
                    shard_unpadded |= matches!(part, Part::Shard) && inner.contains(':');
                    if matches!(part, Part::Shard) && parts.iter().any(|p| matches!(p, Part::Shard)) {
                        return Err(err(format!("`<shard>` appears twice in `{source}`: a key has one shard number")));
                    }
                    parts.push(part);
                }
                '>' => return Err(err(format!("`>` without `<` at byte {at} of `{source}`"))),
                c => literal.push(c),
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        // A placeholder must be followed by the end or by a literal starting with `#`: component
        // text never holds `#`, so that is where the component ends, exactly. Or, joined to
        // `<shard>` by one of `SHARD_JOINS` (AWS's `<date>.<shard>`): the shard's digits after the
        // last such separator before the next `#` end it, exactly.
        for (at, pair) in parts.windows(2).enumerate() {
            let name = match &pair[0] {
                Part::Field { name, .. } => name.as_str(),
                Part::Shard => SHARD,
                Part::Literal(_) => continue,
            };
            let joined = |next: &str| {
                matches!(pair[0], Part::Field { .. })
                    && SHARD_JOINS.contains(&next)
                    && matches!(parts.get(at + 2), Some(Part::Shard))
            };
            if let Part::Literal(next) = &pair[1]
                && !next.starts_with('#')
                && !joined(next)
            {
                return Err(err(format!(
                    "the placeholder `<{name}>` must be followed by `#` or by the end of the template, \
                     found `{next}`: `#` is what separates key components (only `<shard>` may also be joined \
                     to the placeholder before it by `.`, `_` or `-`: `<{name}>.<shard>`)"
                )));
            }
        }
        // A raw component may hold `#`: only "the rest of the key" tells where it ends.
        let last = parts.len().saturating_sub(1);
        for (i, part) in parts.iter().enumerate() {
            if let Part::Field { name, raw: true, .. } = part
                && i != last
            {
                return Err(err(format!(
                    "`<{name}:raw>` must be the last part of the template `{source}`: a raw value may hold `#`, \
                     so it can only be read back as the rest of the key; escape it (`<{name}>`) or move it to the end"
                )));
            }
        }
        Ok(Template { lit: lit.clone(), source, parts, shard_unpadded })
    }

    fn placeholder(inner: &str, source: &str) -> Result<Part, String> {
        let (name, width) = match inner.split_once(':') {
            Some((name, width)) => (name, Some(width)),
            None => (inner, None),
        };
        let valid_ident = name.chars().next().is_some_and(|c| c == '_' || c.is_alphabetic())
            && name.chars().all(|c| c == '_' || c.is_alphanumeric());
        if !valid_ident && name.contains(['.', '[']) {
            return Err(format!(
                "`<{inner}>` in `{source}` names a value inside a document: a key cannot be made of one, since \
                 DynamoDB's keys are top-level attributes and an update of the nested value could not keep the key \
                 in step; keep the value in a top-level field of its own and make the key of that"
            ));
        }
        if !valid_ident {
            return Err(format!(
                "`<{inner}>` in `{source}` is not a placeholder: write `<field>`, `<field:N>` or `<field:raw>`"
            ));
        }
        if name == SHARD {
            return match width {
                None | Some(UNPADDED) => Ok(Part::Shard),
                Some(_) => Err(format!(
                    "`<{inner}>` in `{source}`: `<shard>` is the reserved placeholder of a sharded key, written \
                     `<shard>` (zero-padded to the digits of `shards - 1`) or `<shard:{UNPADDED}>` (no padding)"
                )),
            };
        }
        if width == Some("raw") {
            return Ok(Part::Field { name: name.to_owned(), width: None, raw: true });
        }
        if width.is_some_and(|w| w.split(':').any(|w| w == "raw")) {
            return Err(format!(
                "`<{inner}>` in `{source}` combines `raw` with a width: a raw component is a string written as it \
                 is, a width zero-pads an integer; keep one"
            ));
        }
        let width = match width {
            None => None,
            // An integer written without padding, as existing keys may hold it (`v1`, `v10`):
            // width 0 all the way down. It no longer sorts as the number does.
            Some(UNPADDED) => Some(0),
            Some(w) => match w.parse::<usize>() {
                Ok(n @ 1..=MAX_WIDTH) => Some(n),
                _ => {
                    return Err(format!(
                        "the width in `<{inner}>` must be a number of digits from 1 to {MAX_WIDTH} (or `{UNPADDED}`), found `{w}`"
                    ));
                }
            },
        };
        Ok(Part::Field { name: name.to_owned(), width, raw: false })
    }

    /// The placeholders, in order.
    pub fn fields(&self) -> impl Iterator<Item = (&str, Option<usize>)> {
        self.parts.iter().filter_map(|p| match p {
            Part::Field { name, width, .. } => Some((name.as_str(), *width)),
            Part::Literal(_) | Part::Shard => None,
        })
    }

    /// Whether placeholder number `i` is raw (`<field:raw>`).
    pub fn is_raw(&self, i: usize) -> bool {
        self.parts.iter().filter_map(|p| if let Part::Field { raw, .. } = p { Some(*raw) } else { None }).nth(i)
            == Some(true)
    }

    /// The separator joining `<shard>` to the placeholder before it (`.` of `<date>.<shard>`),
    /// if it is joined so: what the parser of part `i` (that placeholder) splits at.
    pub fn shard_join(&self, i: usize) -> Option<&str> {
        match (self.parts.get(i)?, self.parts.get(i + 1)?, self.parts.get(i + 2)?) {
            (Part::Field { .. }, Part::Literal(sep), Part::Shard) if SHARD_JOINS.contains(&sep.as_str()) => Some(sep),
            _ => None,
        }
    }

    /// Whether the template holds `<shard>`.
    pub fn has_shard(&self) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::Shard))
    }

    pub fn has_fields(&self) -> bool {
        self.fields().next().is_some()
    }

    /// The literal text before the first placeholder (the whole text if there is none).
    pub fn prefix(&self) -> String {
        match self.parts.first() {
            Some(Part::Literal(l)) => l.clone(),
            _ => String::new(),
        }
    }

    /// The literal text after placeholder number `i` (up to the next placeholder or the end).
    pub fn literal_after(&self, i: usize) -> String {
        let mut seen = 0;
        let mut parts = self.parts.iter();
        for p in parts.by_ref() {
            if let Part::Field { .. } = p {
                if seen == i {
                    break;
                }
                seen += 1;
            }
        }
        match parts.next() {
            Some(Part::Literal(l)) => l.clone(),
            _ => String::new(),
        }
    }

    /// The literal length, a capacity hint for formatting.
    pub fn literal_len(&self) -> usize {
        self.parts.iter().map(|p| if let Part::Literal(l) = p { l.len() } else { 0 }).sum()
    }
}
