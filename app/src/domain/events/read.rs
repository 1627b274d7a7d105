//! Reading an event: `id`, `ts`, `sessionId` and `type` read as they come, the other fields
//! kept as one JSON object and read as the variant `type` names ([`Read`], `EventKind`
//! externally tagged).
//!
//! The same JSON object path reads every document (`Doc::from_value`), so the browser carries
//! one deserializer for both instead of serde's buffering of internally tagged and flattened
//! fields besides.

use serde::de::{
    self, DeserializeSeed, EnumAccess, Error as _, IntoDeserializer, VariantAccess, Visitor,
};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::{Event, EventKind, Read};

use super::super::fields::{take_field, Fields};

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(EventVisitor)
    }
}

/// Reads an event's own fields as they come and keeps the others for its kind.
struct EventVisitor;

impl<'de> Visitor<'de> for EventVisitor {
    type Value = Event;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an event (a JSON object)")
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Event, A::Error> {
        let (mut id, mut ts, mut session_id, mut ty) = (None, None, None, None);
        let mut fields = Fields::new();
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Id => id = Some(map.next_value()?),
                Key::Ts => ts = Some(map.next_value()?),
                Key::SessionId => session_id = Some(map.next_value()?),
                Key::Type => ty = Some(map.next_value()?),
                Key::Other(name) => {
                    fields.insert(name, map.next_value()?);
                }
            }
        }
        let missing = A::Error::missing_field;
        let (id, ts) = (
            id.ok_or_else(|| missing("id"))?,
            ts.ok_or_else(|| missing("ts"))?,
        );
        let session_id = session_id.ok_or_else(|| missing("sessionId"))?;
        let ty = ty.ok_or_else(|| missing("type"))?;
        let kind = Read::deserialize(Tagged { ty, fields }).map_err(A::Error::custom)?;
        Ok(Event {
            id,
            ts,
            session_id,
            kind,
        })
    }
}

/// A key of an event's object: one of the event's own, or one of its kind's (kept).
enum Key {
    Id,
    Ts,
    SessionId,
    Type,
    Other(String),
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_identifier(KeyVisitor)
    }
}

struct KeyVisitor;

impl Visitor<'_> for KeyVisitor {
    type Value = Key;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        Ok(match key {
            "id" => Key::Id,
            "ts" => Key::Ts,
            "sessionId" => Key::SessionId,
            "type" => Key::Type,
            other => Key::Other(other.to_owned()),
        })
    }

    fn visit_string<E: de::Error>(self, key: String) -> Result<Key, E> {
        match key.as_str() {
            "id" | "ts" | "sessionId" | "type" => self.visit_str(&key),
            _ => Ok(Key::Other(key)),
        }
    }
}

impl<'de> Deserialize<'de> for EventKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        kind(Fields::deserialize(d)?).map_err(D::Error::custom)
    }
}

/// The kind of an event whose fields (but `id`, `ts`, `sessionId`) are `fields`.
fn kind(mut fields: Fields) -> Result<EventKind, serde_json::Error> {
    let ty: String = take_field(&mut fields, "type")?;
    Read::deserialize(Tagged { ty, fields })
}

/// An event's `type` and its other fields, read as the enum variant `type` names with those
/// fields. An unknown `type` is read as `Read`'s `#[serde(other)]` unit variant, whose fields
/// are not looked at.
struct Tagged {
    ty: String,
    fields: Fields,
}

impl<'de> Deserializer<'de> for Tagged {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> serde_json::Result<V::Value> {
        visitor.visit_enum(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

impl<'de> EnumAccess<'de> for Tagged {
    type Error = serde_json::Error;
    type Variant = VariantFields;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> serde_json::Result<(V::Value, VariantFields)> {
        let variant = seed.deserialize(
            IntoDeserializer::<serde_json::Error>::into_deserializer(self.ty),
        )?;
        Ok((variant, VariantFields(self.fields)))
    }
}

/// The fields of the variant an event's `type` named.
struct VariantFields(Fields);

impl<'de> VariantAccess<'de> for VariantFields {
    type Error = serde_json::Error;

    /// Only `Unknown` is a unit variant: a newer version's event, whose fields are ignored.
    fn unit_variant(self) -> serde_json::Result<()> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> serde_json::Result<T::Value> {
        seed.deserialize(Value::Object(self.0))
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        _len: usize,
        _visitor: V,
    ) -> serde_json::Result<V::Value> {
        Err(serde_json::Error::custom("an event's fields are an object"))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> serde_json::Result<V::Value> {
        self.0.deserialize_any(visitor)
    }
}
