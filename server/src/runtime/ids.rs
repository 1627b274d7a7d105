//! The ids the runtime makes.

/// A 22-character base64url uuid, as the documents' `uuid` field has it.
pub fn uuid22() -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let bytes = uuid::Uuid::new_v4().into_bytes();
    let mut bits: u128 = u128::from_be_bytes(bytes);
    let mut out = [0u8; 22];
    // 22 digits of 6 bits cover 132 bits; the top 4 are zero.
    for slot in out.iter_mut().rev() {
        *slot = ALPHABET[(bits & 63) as usize];
        bits >>= 6;
    }
    String::from_utf8(out.to_vec()).expect("ASCII")
}
