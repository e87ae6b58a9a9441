//! `--export <format>`: print the table definition instead of running the example.

use dynamo_entity::TableDefinition;

/// The formats `--export` takes, and the file each is checked in as beside the example.
pub const FORMATS: [(&str, &str); 4] = [
    ("terraform", "table.tf"),
    ("cloudformation-json", "table.cfn.json"),
    ("cloudformation-yaml", "table.cfn.yaml"),
    ("markdown", "access-patterns.md"),
];

/// `definition` written in `format` for the table `name`.
pub fn render(definition: &TableDefinition, name: &str, format: &str) -> Option<String> {
    Some(match format {
        "terraform" => definition.to_terraform(name),
        "cloudformation-json" => definition.to_cloudformation_json(name),
        "cloudformation-yaml" => definition.to_cloudformation_yaml(name),
        "markdown" => definition.to_markdown(name),
        _ => return None,
    })
}

/// If the command line asks for `--export <format>`: the text to print, or why it cannot be.
#[allow(dead_code)]
pub fn requested(definition: &TableDefinition, name: &str) -> Option<Result<String, String>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let at = args.iter().position(|a| a == "--export")?;
    let names: Vec<&str> = FORMATS.iter().map(|(f, _)| *f).collect();
    Some(match args.get(at + 1) {
        Some(format) => render(definition, name, format)
            .ok_or_else(|| format!("unknown export format `{format}`: one of {}", names.join(", "))),
        None => Err(format!("--export takes a format: one of {}", names.join(", "))),
    })
}
