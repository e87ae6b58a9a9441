//! `rename_all` rules, applied to snake_case field names and PascalCase variant names.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

pub const RULES: &[(&str, RenameRule)] = &[
    ("lowercase", RenameRule::Lower),
    ("UPPERCASE", RenameRule::Upper),
    ("PascalCase", RenameRule::Pascal),
    ("camelCase", RenameRule::Camel),
    ("snake_case", RenameRule::Snake),
    ("SCREAMING_SNAKE_CASE", RenameRule::ScreamingSnake),
    ("kebab-case", RenameRule::Kebab),
    ("SCREAMING-KEBAB-CASE", RenameRule::ScreamingKebab),
];

impl RenameRule {
    pub fn from_str(s: &str) -> Option<Self> {
        RULES.iter().find(|(name, _)| *name == s).map(|(_, r)| *r)
    }

    pub fn names() -> String {
        RULES.iter().map(|(n, _)| format!("\"{n}\"")).collect::<Vec<_>>().join(", ")
    }

    /// Applies the rule to a snake_case field name.
    pub fn apply_to_field(self, field: &str) -> String {
        let words = field.split('_').filter(|w| !w.is_empty());
        self.join(words.map(str::to_owned).collect())
    }

    /// Applies the rule to a PascalCase variant name.
    pub fn apply_to_variant(self, variant: &str) -> String {
        let mut words: Vec<String> = Vec::new();
        for c in variant.chars() {
            if c.is_uppercase() || words.is_empty() {
                words.push(String::new());
            }
            if let Some(w) = words.last_mut() {
                w.extend(c.to_lowercase());
            }
        }
        self.join(words)
    }

    fn join(self, words: Vec<String>) -> String {
        fn capitalize(w: &str) -> String {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_uppercase().chain(c.flat_map(char::to_lowercase)).collect(),
                None => String::new(),
            }
        }
        let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
        match self {
            RenameRule::Lower => lower.concat(),
            RenameRule::Upper => lower.concat().to_uppercase(),
            RenameRule::Pascal => lower.iter().map(|w| capitalize(w)).collect(),
            RenameRule::Camel => {
                lower.iter().enumerate().map(|(i, w)| if i == 0 { w.clone() } else { capitalize(w) }).collect()
            }
            RenameRule::Snake => lower.join("_"),
            RenameRule::ScreamingSnake => lower.join("_").to_uppercase(),
            RenameRule::Kebab => lower.join("-"),
            RenameRule::ScreamingKebab => lower.join("-").to_uppercase(),
        }
    }
}
