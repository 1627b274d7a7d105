//! Drafts: what the human wrote and has not sent, one per agent (the lead's too), kept in the
//! browser's `localStorage` so a switch or a reload never loses it or hands it to another agent.
//! Keyed by identity, not seat: a draft written to Lyra never goes to whoever sits there next.

/// The key a draft for the identity `id` (or the lead) is kept under.
pub fn key(id: Option<&str>) -> String {
    match id {
        Some(id) => format!("soulgrid:draft:{id}"),
        None => "soulgrid:draft:lead".to_string(),
    }
}

#[cfg(feature = "hydrate")]
fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// The draft kept under `key` (empty when none, or without storage).
pub fn load(key: &str) -> String {
    #[cfg(feature = "hydrate")]
    if let Some(s) = storage() {
        return s.get_item(key).ok().flatten().unwrap_or_default();
    }
    let _ = key;
    String::new()
}

/// Keeps `text` under `key` (an empty text removes the draft).
pub fn keep(key: &str, text: &str) {
    #[cfg(feature = "hydrate")]
    if let Some(s) = storage() {
        let _ = match text.is_empty() {
            true => s.remove_item(key),
            false => s.set_item(key, text),
        };
    }
    let _ = (key, text);
}
