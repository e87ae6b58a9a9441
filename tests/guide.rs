//! The README is the front page and the guide is in the crate's docs: `dynamo_entity::guide`,
//! one module a chapter, each the Markdown file `src/guide/<chapter>.md`. Nothing the README
//! said when it held the whole documentation is lost: each of its section titles then is a
//! chapter of the guide or a section of one, and the README links to every chapter.

use std::path::Path;

/// Every `## ` and `### ` title of the README when it held the whole documentation (2,774
/// lines), in its order.
const README_TITLES: &[&str] = &[
    "Try it",
    "Running queries",
    "Item collections: many entity types in one request",
    "Conditions, filters, scans",
    "Views: reading less",
    "Indexes that hold less: `keys_only` and `include`",
    "Updates, versions, transactions",
    "Nested documents",
    "Fields the library fills, and validation",
    "Batches",
    "Writes of several entity types in one batch",
    "Capacity and cost",
    "Hot partitions: write sharding",
    "Changing a live table: plan and apply",
    "Table settings: warm throughput, on-demand maximum, recovery period, Contributor Insights, resource policy",
    "Evolving the table: backfill and migrate",
    "Unique values",
    "Failure modes",
    "Streams",
    "Table exports for analytics",
    "Client-side encryption (feature `encryption`)",
    "Exporting the table",
    "The table drawn",
    "NoSQL Workbench models",
    "Multi-tenant tables",
    "The IAM policy",
    "Adopting an existing table",
    "Tables keyed on a plain attribute (natural keys)",
    "Attribute reference",
    "On the struct",
    "On fields",
    "Key templates",
    "What is written",
    "Indexes on plain attributes",
    "Multi-attribute index keys",
    "How values become key text (`KeyPart`)",
    "What the derive generates",
    "Errors",
    "Benchmarks",
    "Compared with other libraries",
    "License",
];

/// The sections the front page keeps as they were (the README is the crate's root page on
/// docs.rs): what the crate is compared with, and its license.
const FRONT_PAGE: &[&str] = &["Compared with other libraries", "License"];

/// The longest the front page may grow.
const MAX_README_LINES: usize = 260;

const DOCS_RS: &str = "https://docs.rs/dynamo-entity/latest/dynamo_entity/guide";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The Markdown titles of a page, outside code blocks: (level, text).
fn titles(markdown: &str) -> Vec<(usize, String)> {
    let mut code = false;
    let mut found = Vec::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            code = !code;
            continue;
        }
        if code {
            continue;
        }
        let level = line.bytes().take_while(|&b| b == b'#').count();
        if (1..=6).contains(&level) && line[level..].starts_with(' ') {
            found.push((level, line[level + 1..].trim().to_owned()));
        }
    }
    found
}

/// The guide's chapters: (module name, Markdown text), in file name order.
fn chapters() -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = std::fs::read_dir(root().join("src/guide"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .map(|path| {
            let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
            let text = std::fs::read_to_string(&path).unwrap();
            (name, text)
        })
        .collect();
    found.sort();
    assert!(found.len() >= 10, "the guide's chapters were not found in src/guide ({})", found.len());
    found
}

#[test]
fn every_title_of_the_old_readme_is_a_chapter_or_a_section_of_one() {
    let mut guide_titles = Vec::new();
    for (name, text) in chapters() {
        for (level, title) in titles(&text) {
            guide_titles.push((title, name.clone(), level));
        }
    }
    let front_page: Vec<String> = titles(&read("README.md")).into_iter().map(|(_, title)| title).collect();
    let mut missing = Vec::new();
    for &wanted in README_TITLES {
        let in_guide = guide_titles.iter().any(|(title, _, _)| title == wanted);
        let kept = FRONT_PAGE.contains(&wanted) && front_page.iter().any(|title| title == wanted);
        if !in_guide && !kept {
            missing.push(wanted);
        }
    }
    assert!(missing.is_empty(), "titles of the README that are neither a chapter nor a section of one: {missing:#?}");
}

#[test]
fn every_chapter_is_a_module_of_the_guide_with_a_title_and_its_contents() {
    let module = read("src/guide/mod.rs");
    for (name, text) in chapters() {
        assert!(
            module.contains(&format!("#[doc = include_str!(\"{name}.md\")]\npub mod {name} {{}}")),
            "src/guide/{name}.md is not the docs of `dynamo_entity::guide::{name}`"
        );
        // `mod@` where the name is also a primitive type's (`reference`).
        assert!(
            module.contains(&format!("]({name})")) || module.contains(&format!("](mod@{name})")),
            "the guide's contents do not link to `{name}`"
        );
        let found = titles(&text);
        assert!(matches!(found.first(), Some((1, _))), "src/guide/{name}.md does not start with its title");
        assert_eq!(found.iter().filter(|(level, _)| *level == 1).count(), 1, "src/guide/{name}.md: one title");
        // The contents at the top list every section, before the first of them.
        let first_section = text.find("\n## ").unwrap_or(text.len());
        for (level, title) in &found[1..] {
            assert!(
                text[..first_section].contains(&format!("- [{title}](#")),
                "src/guide/{name}.md: the contents lack the section {title:?} (level {level})"
            );
        }
        assert!(text.contains("](crate::guide)"), "src/guide/{name}.md does not link back to the guide");
    }
}

#[test]
fn the_readme_is_the_front_page_and_links_to_every_chapter() {
    let readme = read("README.md");
    let lines = readme.lines().count();
    assert!(lines < MAX_README_LINES, "the README has {lines} lines: the front page holds at most {MAX_README_LINES}");
    for command in ["cargo run --example chat", "cargo test --workspace"] {
        assert!(readme.contains(&format!("\n{command}\n")), "the README does not give `{command}`");
    }
    assert!(readme.contains("](docs/chat.png)"), "the README does not show the picture");
    assert!(root().join("docs/chat.png").is_file(), "docs/chat.png is missing");
    for (name, _) in chapters() {
        assert!(
            readme.contains(&format!("]({DOCS_RS}/{name}/index.html)")),
            "the README does not link to the chapter `{name}` on docs.rs"
        );
        assert!(readme.contains(&format!("](src/guide/{name}.md)")), "the README does not link to src/guide/{name}.md");
    }
    // No link of the front page points at a section it no longer holds.
    let own: Vec<String> = titles(&readme).into_iter().map(|(_, title)| anchor(&title)).collect();
    for link in readme.split("](#").skip(1) {
        let target = &link[..link.find(')').unwrap()];
        assert!(own.iter().any(|a| a == target), "the README links to #{target}, which it does not hold");
    }
}

/// The anchor rustdoc and GitHub give a title.
fn anchor(title: &str) -> String {
    title
        .chars()
        .filter_map(|c| match c {
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            ' ' => Some('-'),
            _ => None,
        })
        .collect()
}
