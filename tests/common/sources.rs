//! Reading the runtime's sources, for the tests that check how its modules use one another
//! (`tests/send_path.rs`, `tests/layers.rs`).

/// Each `.rs` file under `root`, with its path relative to it (`/`-separated) and its text.
pub fn sources(root: &std::path::Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
                found.push((relative, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    found
}
