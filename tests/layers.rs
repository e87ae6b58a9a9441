//! The runtime is built in floors (see the module docs of `runtime/src/lib.rs`): a module imports
//! only from its own floor or below. This test reads every file under `runtime/src`, finds the
//! floor of the module it belongs to and the floor of every module it names by a `crate::` path
//! (`use crate::a::b;`, a grouped `use crate::{a::b, c};`, a `crate::a::b` path in code; comments
//! and doc links aside), and fails naming the file, the line and both floors of an import that
//! runs back up.

#[path = "common/sources.rs"]
mod sources;

use std::path::Path;

use sources::sources;

/// The floors, bottom up: each top-level module of the runtime and its floor. `lib.rs` sits on
/// top (it declares the modules and re-exports the public names).
const FLOORS: &[(&str, u8)] = &[
    ("error", 1),
    ("json", 1),
    ("size", 1),
    ("key", 2),
    ("codec", 2),
    ("model", 3),
    ("expr", 4),
    ("send", 5),
    ("cursor", 5),
    ("table", 5),
    ("ops", 6),
    ("schema", 7),
    ("stream", 7),
    ("export", 7),
    ("encryption", 7),
    ("local", 8),
    ("lib", 9),
];

/// Upward imports the floors do not allow yet, each as (file, the module path it names): they are
/// to be moved down. The test fails on any other upward import, and on an entry here that no
/// longer occurs (so that the list only shrinks). None is left: a new upward import is moved
/// down, not listed here.
const NOT_YET_MOVED: &[(&str, &str)] = &[];

fn floor_of(module: &str) -> Option<u8> {
    FLOORS.iter().find(|(m, _)| *m == module).map(|(_, f)| *f)
}

/// The top-level module a file (relative to `runtime/src`) belongs to: `ops/query/mod.rs` and
/// `ops.rs` to `ops`, `lib.rs` to `lib`.
fn module_of(relative: &str) -> &str {
    let first = relative.split('/').next().unwrap_or(relative);
    first.strip_suffix(".rs").unwrap_or(first)
}

/// The code of a line: without a `//` comment (line, doc and inner doc comments alike) and without
/// the contents of string literals (which may hold `crate::` or `//`).
fn code_of(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            match c {
                '\\' => {
                    chars.next();
                }
                '"' => {
                    in_string = false;
                    out.push('"');
                }
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push('"');
            }
            '/' if chars.peek() == Some(&'/') => break,
            // A char literal holding a quote (`'"'`) does not open a string.
            '\'' if chars.clone().nth(1) == Some('\'') => {
                out.push('\'');
                out.push(chars.next().unwrap_or(' '));
                out.push(chars.next().unwrap_or(' '));
            }
            _ => out.push(c),
        }
    }
    out
}

/// The top-level modules named by `crate::` paths in `code` (one item of a file: a `use` whose
/// braces may span lines is passed whole), each with the path as written up to the module.
fn crate_paths(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        // `$crate::` is a macro's own crate, also ours; `dynamo_entity_crate::` is not a path.
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = code[at + "crate::".len()..].trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            // `crate::{a::b, c::{d, e}}`: each top-level entry, up to its own braces.
            let mut depth = 0;
            let mut entry = String::new();
            for c in group.chars().chain([',']) {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        let path: String = entry
                            .trim()
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                            .collect();
                        if !path.is_empty() {
                            found.push(path.trim_end_matches(':').to_owned());
                        }
                        entry.clear();
                    }
                    c if depth == 0 => entry.push(c),
                    _ => {}
                }
            }
            let path: String =
                entry.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
            if !path.is_empty() {
                found.push(path.trim_end_matches(':').to_owned());
            }
        } else {
            let path: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
            found.push(path.trim_end_matches(':').to_owned());
        }
    }
    found
}

/// Each upward import of the runtime: `file:line`, the importing module and its floor, the path
/// named and its floor.
fn upward_imports() -> Vec<(String, String, u8, String, u8)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/src");
    let mut upward = Vec::new();
    for (relative, text) in sources(&root) {
        let module = module_of(&relative);
        let floor = floor_of(module).unwrap_or_else(|| panic!("{relative}: module `{module}` has no floor in FLOORS"));
        let lines: Vec<String> = text.lines().map(code_of).collect();
        let mut n = 0;
        while n < lines.len() {
            // A grouped `use crate::{..}` spanning lines is read as one.
            let mut code = lines[n].clone();
            let first = n;
            if code.contains("crate::{") {
                let mut depth: i32 = 0;
                loop {
                    depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
                    if depth <= 0 || n + 1 >= lines.len() {
                        break;
                    }
                    n += 1;
                    code = format!("{code} {}", lines[n]);
                    depth = 0;
                }
            }
            for path in crate_paths(&code) {
                let target = path.split("::").next().unwrap_or_default();
                // `crate::Error` and the like: a name `lib.rs` re-exports, no module.
                let Some(target_floor) = floor_of(target) else {
                    continue;
                };
                if target_floor > floor {
                    upward.push((format!("{relative}:{}", first + 1), module.to_owned(), floor, path, target_floor));
                }
            }
            n += 1;
        }
    }
    upward.sort();
    upward
}

#[test]
fn no_module_imports_from_a_floor_above_its_own() {
    let upward = upward_imports();
    let allowed = |file: &str, path: &str| {
        NOT_YET_MOVED
            .iter()
            .any(|(f, p)| file.split(':').next() == Some(*f) && (path == *p || path.starts_with(&format!("{p}::"))))
    };
    let offenders: Vec<String> = upward
        .iter()
        .filter(|(file, _, _, path, _)| !allowed(file, path))
        .map(|(file, module, floor, path, target)| {
            format!("{file}: `{module}` (floor {floor}) imports crate::{path} (floor {target})")
        })
        .collect();
    assert!(offenders.is_empty(), "imports that run back up the runtime's floors:\n{}", offenders.join("\n"));
    let stale: Vec<String> = NOT_YET_MOVED
        .iter()
        .filter(|(f, p)| {
            !upward.iter().any(|(file, _, _, path, _)| {
                file.split(':').next() == Some(*f) && (path == p || path.starts_with(&format!("{p}::")))
            })
        })
        .map(|(f, p)| format!("{f}: crate::{p}"))
        .collect();
    assert!(stale.is_empty(), "NOT_YET_MOVED lists imports that are gone (remove them):\n{}", stale.join("\n"));
}

/// Every top-level module `lib.rs` declares has a floor, and every file belongs to one.
#[test]
fn every_module_has_a_floor() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/src");
    let lib = std::fs::read_to_string(root.join("lib.rs")).unwrap();
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.trim().trim_start_matches("pub ").strip_prefix("mod "))
        .map(|l| l.trim_end_matches(';'))
        .collect();
    assert!(declared.len() >= 10, "{declared:?}");
    for module in declared {
        assert!(floor_of(module).is_some(), "module `{module}` of lib.rs has no floor in FLOORS");
    }
}

/// The reader of paths finds what it must: plain, grouped (nested, over lines) and in code.
#[test]
fn the_path_reader_reads_every_form() {
    assert_eq!(crate_paths("use crate::ops::query::Query;"), ["ops::query::Query"]);
    assert_eq!(
        crate_paths("use crate::{ops::query::Query, schema, send::{a, b}};"),
        ["ops::query::Query", "schema", "send"]
    );
    assert_eq!(crate_paths("let x = crate::table::Table::new(c, \"t\");"), ["table::Table::new"]);
    assert_eq!(crate_paths("$crate::model::Item"), ["model::Item"]);
    assert!(crate_paths("use dynamo_entity_crate::x;").is_empty());
    assert_eq!(code_of("let s = \"crate::ops // x\"; // crate::schema"), "let s = \"\"; ");
    assert_eq!(code_of("/// [`A`](crate::ops::A)"), "");
    assert_eq!(code_of("if c == '\"' { crate::ops::x() }"), "if c == '\"' { crate::ops::x() }");
}
