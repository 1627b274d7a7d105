//! Reading a JSON object field by field, as events and imported agents are read (their own
//! readers, not serde's buffering of flattened fields).

use serde::de::{self, Error as _};
use serde_json::{Map, Value};

/// An object's fields.
pub(in crate::domain) type Fields = Map<String, Value>;

/// Takes the required field `name` out of an object's `fields` and reads it.
pub(in crate::domain) fn take_field<T: de::DeserializeOwned>(
    fields: &mut Fields,
    name: &'static str,
) -> serde_json::Result<T> {
    match fields.remove(name) {
        Some(value) => T::deserialize(value),
        None => Err(serde_json::Error::missing_field(name)),
    }
}
