//! Tokens and secrets the server hands out (invites, external agents' secrets, watch links):
//! made random, kept only as a SHA-256 digest, compared in time that does not depend on where
//! two values differ. Below the runtime and the HTTP layer, which both use it.

use sha2::{Digest, Sha256};

/// A new token: `prefix`, then 244 random bits (two v4 UUIDs) in hex.
pub fn new_token(prefix: &str) -> String {
    format!(
        "{prefix}{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// The SHA-256 hex digest a token is kept as.
pub fn digest(token: &str) -> String {
    format!("{:x}", Sha256::digest(token.as_bytes()))
}

/// Equal strings, compared in time that does not depend on where they differ (only on their
/// lengths).
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_only_when_equal() {
        assert!(same("abc", "abc") && same("", ""));
        assert!(!same("abc", "abd") && !same("abc", "abcd") && !same("b", "a"));
    }

    #[test]
    fn a_token_is_its_prefix_and_64_hex_digits_and_its_digest_is_hex() {
        let t = new_token("sgi_");
        let rest = t.strip_prefix("sgi_").unwrap();
        assert!(rest.len() == 64 && rest.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(t, new_token("sgi_"));
        assert_eq!(digest("abc").len(), 64);
    }
}
