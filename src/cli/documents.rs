//! Reading the JSON and YAML files users hand us.

use super::CommandError;
use serde_json::Value;
use std::path::Path;

/// One JSON or YAML document (`.json` files are read as JSON, anything else
/// as YAML, which JSON documents also are).
pub fn load_value(path: &Path) -> Result<Value, CommandError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CommandError(format!("cannot read {}: {e}", path.display())))?;
    // Errors give the place, never the text there: a file may hold secrets.
    let parsed = if path.extension().is_some_and(|e| e == "json") {
        serde_json::from_str(&text).map_err(|e| e.to_string())
    } else {
        serde_saphyr::from_str(&text)
            .map_err(|e: serde_saphyr::Error| e.without_snippet().to_string())
    };
    parsed.map_err(|e| CommandError(format!("{}: {e}", path.display())))
}
