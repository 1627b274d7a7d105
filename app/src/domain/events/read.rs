//! Reading an event: its fields as one JSON object, `id`, `ts` and `sessionId` taken out, and
//! the rest read as the variant its `type` names ([`Read`], `EventKind` externally tagged).
//!
//! The same JSON object path reads every document (`Doc::from_value`), so the browser carries
//! one deserializer for both instead of serde's buffering of internally tagged and flattened
//! fields besides.

use serde::de::{
    self, DeserializeSeed, EnumAccess, Error as _, IntoDeserializer, VariantAccess, Visitor,
};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::{Event, EventKind, Read};

type Fields = Map<String, Value>;

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut fields = Fields::deserialize(d)?;
        let id = take(&mut fields, "id").map_err(D::Error::custom)?;
        let ts = take(&mut fields, "ts").map_err(D::Error::custom)?;
        let session_id = take(&mut fields, "sessionId").map_err(D::Error::custom)?;
        let kind = kind(fields).map_err(D::Error::custom)?;
        Ok(Event {
            id,
            ts,
            session_id,
            kind,
        })
    }
}

impl<'de> Deserialize<'de> for EventKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        kind(Fields::deserialize(d)?).map_err(D::Error::custom)
    }
}

/// The kind of an event whose fields (but `id`, `ts`, `sessionId`) are `fields`.
fn kind(mut fields: Fields) -> Result<EventKind, serde_json::Error> {
    let ty: String = take(&mut fields, "type")?;
    Read::deserialize(Tagged { ty, fields })
}

/// Takes the field `name` out of `fields` and reads it.
fn take<T: de::DeserializeOwned>(fields: &mut Fields, name: &'static str) -> serde_json::Result<T> {
    match fields.remove(name) {
        Some(value) => T::deserialize(value),
        None => Err(serde_json::Error::missing_field(name)),
    }
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
