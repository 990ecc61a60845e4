//! JSON values as CEL sees them, typed by their schema the way Kubernetes
//! types them: `number` is always a double, `integer` an int, strings with
//! format `date-time` are timestamps and with format `byte` bytes; at a
//! resource root only `apiVersion`, `kind` and `metadata.name` and
//! `.generateName` are visible besides the schema's own fields.
//!
//! Values are built directly as the interpreter's `Val` tree, borrowing
//! strings from the JSON, and only as far as the rules read them (see
//! `need.rs`): converting is what evaluating rules costs most.
//!
//! Views of JSON objects and arrays that rules read only in part: a field
//! is converted for CEL when the interpreter asks for it, and a view is
//! copied, when the interpreter binds it to a loop variable, without
//! copying what it shows.
//!
//! A view stands only for a value its rules select from, iterate, index or
//! count (a `Need::Part`): those reach it through the capabilities below.
//! A value used whole (compared, passed to a function, put in a list) is
//! converted into the interpreter's own containers instead, as only those
//! compare equal to the containers a rule builds.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use cel::common::traits::{self, Container, Indexer, Iterable, Sizer, Zeroer};
use cel::common::types::{
    CelBool, CelBytes, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelOptional, CelString, CelTimestamp,
    CelUInt, Type as CelType,
};
use cel::common::value::{CowVal, Val};
use cel::ExecutionError;
use serde_json::{Map, Value};

use super::check::{is_plain, property_named};
use super::escape;
use super::need::{Need, NOTHING};
use crate::schema::{entry_of, Schema, Type};

/// A converted value, borrowing from the JSON it was built from.
pub type Converted<'v> = Box<dyn Val + 'v>;

/// `value` typed by `schema` (None: below `x-kubernetes-preserve-unknown-fields`,
/// typed by the JSON alone).
pub fn to_cel<'v>(value: &'v Value, schema: Option<&'v Schema>) -> Converted<'v> {
    match value {
        Value::Null => Box::new(CelNull),
        Value::Bool(b) => Box::new(CelBool::from(*b)),
        Value::Number(n) => {
            let double = schema.and_then(|s| s.type_) == Some(Type::Number);
            match (n.as_i64(), double) {
                (Some(i), false) => Box::new(CelInt::from(i)),
                _ => Box::new(CelDouble::from(n.as_f64().unwrap_or(f64::NAN))),
            }
        }
        Value::String(s) => string(s, schema.and_then(|s| s.format.as_deref())),
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.items.as_deref());
            let items: Vec<Converted<'v>> = items.iter().map(|item| to_cel(item, item_schema)).collect();
            Box::new(CelList::from(items))
        }
        Value::Object(map) => {
            let resource = schema.is_some_and(|s| s.embedded_resource);
            object(map.iter(), schema, resource)
        }
    }
}

/// The value of a node with rules, converted as far as they read it; a
/// resource root (or embedded resource) also shows apiVersion, kind and the
/// name fields of metadata.
pub fn node_to_cel<'v>(value: &'v Value, schema: &'v Schema, resource: bool, need: &'v Need) -> Converted<'v> {
    match (value, need) {
        (Value::Object(map), Need::Part { .. }) => Box::new(ObjectView::new(map, schema, need, resource)),
        (Value::Object(map), Need::Whole) => object(map.iter(), Some(schema), resource),
        (other, _) => needed(other, Some(schema), need),
    }
}

/// `value` converted as far as `need` says: what is read only in part is a
/// view, converted as it is read.
pub(super) fn needed<'v>(value: &'v Value, schema: Option<&'v Schema>, need: &'v Need) -> Converted<'v> {
    let (Some(schema), Need::Part { entries, .. }) = (schema, need) else { return to_cel(value, schema) };
    match value {
        Value::Array(items) => Box::new(ArrayView::new(items, schema, entries.as_deref().unwrap_or(&NOTHING))),
        Value::Object(map) => Box::new(ObjectView::new(map, schema, need, schema.embedded_resource)),
        scalar => to_cel(scalar, Some(schema)),
    }
}

/// The field `name` of an object typed by `schema`, as CEL sees it.
pub(super) fn object_entry<'v>(
    name: &str,
    item: &'v Value,
    schema: Option<&'v Schema>,
    resource: bool,
    need: &'v Need,
) -> Converted<'v> {
    match name {
        "metadata" if resource => metadata(item),
        "apiVersion" | "kind" if resource => to_cel(item, None),
        _ => needed(item, schema.and_then(|s| s.entry(name)), need),
    }
}

/// The key an object's entry `name` has in CEL: a property goes by its CEL
/// name (`my__dash__field`), a map entry by its key.
pub(super) fn cel_name<'v>(schema: Option<&Schema>, name: &'v String) -> Cow<'v, str> {
    match schema.filter(|s| !is_plain(name) && s.properties.contains_key(name)).and_then(|_| escape(name)) {
        Some(escaped) => Cow::Owned(escaped),
        None => Cow::Borrowed(name),
    }
}

/// `oldSelf` of a rule with `optionalOldSelf`.
pub fn optional(value: Option<Converted<'_>>) -> Converted<'_> {
    match value {
        Some(v) => Box::new(CelOptional::of(v)),
        None => Box::new(CelOptional::none()),
    }
}

fn object<'v>(
    entries: impl Iterator<Item = (&'v String, &'v Value)>,
    schema: Option<&'v Schema>,
    resource: bool,
) -> Converted<'v> {
    let out: HashMap<CelMapKey<'v>, Converted<'v>> = entries
        .map(|(name, item)| {
            (
                CelMapKey::String(CelString::from(cel_name(schema, name))),
                object_entry(name, item, schema, resource, &Need::Whole),
            )
        })
        .collect();
    Box::new(CelMap::from(out))
}

fn metadata(value: &Value) -> Converted<'_> {
    let mut out: HashMap<CelMapKey<'_>, Converted<'_>> = HashMap::new();
    for field in ["name", "generateName"] {
        if let Some(Value::String(s)) = value.get(field) {
            out.insert(CelMapKey::from(field), Box::new(CelString::from(s.as_str())));
        }
    }
    Box::new(CelMap::from(out))
}

fn string<'v>(s: &'v str, format: Option<&str>) -> Converted<'v> {
    match format {
        Some("date-time") => match chrono::DateTime::parse_from_rfc3339(s) {
            Ok(t) => Box::new(CelTimestamp::from(t)),
            Err(_) => Box::new(CelString::from(s)),
        },
        Some("byte") => {
            use base64::Engine as _;
            match base64::engine::general_purpose::STANDARD.decode(s) {
                Ok(bytes) => Box::new(CelBytes::from(bytes)),
                Err(_) => Box::new(CelString::from(s)),
            }
        }
        _ => Box::new(CelString::from(s)),
    }
}

/// An object read in part: some fields, or its entries.
pub struct ObjectView<'v> {
    pub map: &'v Map<String, Value>,
    pub schema: &'v Schema,
    pub need: &'v Need,
    /// A resource root or embedded resource.
    pub resource: bool,
    keys: OnceLock<Vec<Converted<'v>>>,
    /// The named fields read in part (views themselves) converted so far,
    /// in the order of the need's fields: such a field read again
    /// (`self.labels` in a loop) is lent out, not converted again. Scalars
    /// cost less to convert again than to keep.
    fields: OnceLock<Box<[OnceLock<Converted<'v>>]>>,
}

impl<'v> ObjectView<'v> {
    pub fn new(map: &'v Map<String, Value>, schema: &'v Schema, need: &'v Need, resource: bool) -> Self {
        Self { map, schema, need, resource, keys: OnceLock::new(), fields: OnceLock::new() }
    }

    /// What rules read of the field `name`, and where it is kept once
    /// converted if that is a part.
    fn field(&self, name: &str) -> (&'v Need, Option<&OnceLock<Converted<'v>>>) {
        let (need, position) = self.need.field(name);
        let (Some(i), Need::Part { .. }, Need::Part { fields, .. }) = (position, need, self.need) else {
            return (need, None);
        };
        let slots = self.fields.get_or_init(|| fields.iter().map(|_| OnceLock::new()).collect());
        (need, Some(&slots[i]))
    }
}

impl<'v> Val for ObjectView<'v> {
    fn get_type(&self) -> &CelType {
        <CelMap as Val>::cel_type()
    }

    fn cel_type() -> &'static CelType {
        <CelMap as Val>::cel_type()
    }

    fn as_container(&self) -> Option<&dyn Container> {
        Some(self)
    }

    fn as_indexer<'b, 'w>(&'b self) -> Option<&'b (dyn Indexer + 'w)>
    where
        Self: 'w,
    {
        Some(self)
    }

    fn as_iterable<'b, 'w>(&'b self) -> Option<&'b (dyn Iterable + 'w)>
    where
        Self: 'w,
    {
        Some(self)
    }

    fn as_sizer(&self) -> Option<&dyn Sizer> {
        Some(self)
    }

    fn as_zeroer(&self) -> Option<&dyn Zeroer> {
        Some(self)
    }

    fn clone_as_boxed<'w>(&self) -> Box<dyn Val + 'w>
    where
        Self: 'w,
    {
        Box::new(ObjectView::new(self.map, self.schema, self.need, self.resource))
    }
}

impl<'v> Indexer for ObjectView<'v> {
    fn get<'b, 'w>(&'b self, key: &dyn Val) -> Result<CowVal<'b, 'w>, ExecutionError>
    where
        Self: 'w,
    {
        if let Some(name) = key.downcast_ref::<CelString>() {
            let name = json_name(self.schema, name.inner());
            let (need, slot) = self.field(name);
            if let Some(converted) = slot.and_then(OnceLock::get) {
                return Ok(CowVal::Borrowed(converted.as_ref()));
            }
            if let Some((name, item)) = entry_of(self.map, name) {
                let convert = || object_entry(name, item, Some(self.schema), self.resource, need);
                return Ok(match slot {
                    Some(slot) => CowVal::Borrowed(slot.get_or_init(convert).as_ref()),
                    None => CowVal::Owned(convert()),
                });
            }
        }
        // Missing keys, and keys of other types, fail as the interpreter's
        // own maps fail.
        CelMap::default().get(key).map(|_| unreachable!("an empty map has no entries"))
    }

    fn steal<'w>(self: Box<Self>, key: &dyn Val) -> Result<Box<dyn Val + 'w>, ExecutionError>
    where
        Self: 'w,
    {
        self.get(key).map(CowVal::into_owned)
    }
}

/// The JSON name of the entry CEL calls `name`: a property's escaped name
/// (`my__dash__field`) stands for its JSON name (`my-field`). Every escape
/// has a double underscore (`__dash__`, `__in__`), so a name without one
/// is its own.
fn json_name<'n>(schema: &'n Schema, name: &'n str) -> &'n str {
    if schema.properties.is_empty() || !name.as_bytes().windows(2).any(|pair| pair == b"__") {
        return name;
    }
    property_named(schema, name).map_or(name, |(json, _)| json)
}

impl Container for ObjectView<'_> {
    fn contains(&self, key: &dyn Val) -> Result<bool, ExecutionError> {
        match key.downcast_ref::<CelString>() {
            Some(name) => Ok(self.map.contains_key(json_name(self.schema, name.inner()))),
            None => CelMap::default().contains(key),
        }
    }
}

impl<'v> Iterable for ObjectView<'v> {
    fn iter<'b, 'w>(&'b self) -> Box<dyn traits::Iterator<'b, 'w> + 'b>
    where
        Self: 'w,
    {
        let keys = self.keys.get_or_init(|| {
            let name = |k| Box::new(CelString::from(cel_name(Some(self.schema), k))) as Converted<'v>;
            self.map.keys().map(name).collect()
        });
        Box::new(Slice { items: keys, pos: 0 })
    }
}

impl Sizer for ObjectView<'_> {
    fn size(&self) -> CelInt {
        CelInt::from(self.map.len() as i64)
    }
}

impl Zeroer for ObjectView<'_> {
    fn is_zero_value(&self) -> bool {
        self.map.is_empty()
    }
}

impl fmt::Debug for ObjectView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ObjectView").field(self.map).finish()
    }
}

/// An array read in part: iterated, indexed or counted, its items read as
/// `need` says.
pub struct ArrayView<'v> {
    pub items: &'v [Value],
    pub schema: &'v Schema,
    pub item_need: &'v Need,
    converted: OnceLock<Vec<Converted<'v>>>,
}

impl<'v> ArrayView<'v> {
    pub fn new(items: &'v [Value], schema: &'v Schema, item_need: &'v Need) -> Self {
        Self { items, schema, item_need, converted: OnceLock::new() }
    }

    fn item(&self, item: &'v Value) -> Converted<'v> {
        needed(item, self.schema.items.as_deref(), self.item_need)
    }
}

impl<'v> Val for ArrayView<'v> {
    fn get_type(&self) -> &CelType {
        <CelList as Val>::cel_type()
    }

    fn cel_type() -> &'static CelType {
        <CelList as Val>::cel_type()
    }

    fn as_indexer<'b, 'w>(&'b self) -> Option<&'b (dyn Indexer + 'w)>
    where
        Self: 'w,
    {
        Some(self)
    }

    fn as_iterable<'b, 'w>(&'b self) -> Option<&'b (dyn Iterable + 'w)>
    where
        Self: 'w,
    {
        Some(self)
    }

    fn as_sizer(&self) -> Option<&dyn Sizer> {
        Some(self)
    }

    fn as_zeroer(&self) -> Option<&dyn Zeroer> {
        Some(self)
    }

    fn clone_as_boxed<'w>(&self) -> Box<dyn Val + 'w>
    where
        Self: 'w,
    {
        Box::new(ArrayView::new(self.items, self.schema, self.item_need))
    }
}

impl<'v> Indexer for ArrayView<'v> {
    fn get<'b, 'w>(&'b self, idx: &dyn Val) -> Result<CowVal<'b, 'w>, ExecutionError>
    where
        Self: 'w,
    {
        let position = if let Some(i) = idx.downcast_ref::<CelInt>() {
            Some(*i.inner())
        } else if let Some(u) = idx.downcast_ref::<CelUInt>() {
            Some(i64::try_from(*u.inner()).unwrap_or(i64::MAX))
        } else {
            idx.downcast_ref::<CelDouble>().map(|d| *d.inner()).filter(|d| d.fract() == 0.0).map(|d| d as i64)
        };
        match position.and_then(|i| usize::try_from(i).ok()).map(|i| self.items.get(i)) {
            Some(Some(item)) => Ok(CowVal::Owned(self.item(item))),
            Some(None) => Err(ExecutionError::IndexOutOfBounds(idx.try_into().unwrap_or(cel::Value::Null))),
            // Other index types fail as the interpreter's own lists fail,
            // with the same message, which shows the list.
            None => {
                let whole: Vec<Converted<'v>> =
                    self.items.iter().map(|i| to_cel(i, self.schema.items.as_deref())).collect();
                CelList::from(whole).get(idx).map(CowVal::into_owned).map(CowVal::Owned)
            }
        }
    }

    fn steal<'w>(self: Box<Self>, idx: &dyn Val) -> Result<Box<dyn Val + 'w>, ExecutionError>
    where
        Self: 'w,
    {
        self.get(idx).map(CowVal::into_owned)
    }
}

impl<'v> Iterable for ArrayView<'v> {
    fn iter<'b, 'w>(&'b self) -> Box<dyn traits::Iterator<'b, 'w> + 'b>
    where
        Self: 'w,
    {
        let items = self.converted.get_or_init(|| self.items.iter().map(|item| self.item(item)).collect());
        Box::new(Slice { items, pos: 0 })
    }
}

impl Sizer for ArrayView<'_> {
    fn size(&self) -> CelInt {
        CelInt::from(self.items.len() as i64)
    }
}

impl Zeroer for ArrayView<'_> {
    fn is_zero_value(&self) -> bool {
        self.items.is_empty()
    }
}

impl fmt::Debug for ArrayView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ArrayView").field(&self.items).finish()
    }
}

/// Lends out a slice of converted values.
struct Slice<'b, 'v> {
    items: &'b [Converted<'v>],
    pos: usize,
}

impl<'b, 'v: 'w, 'w> traits::Iterator<'b, 'w> for Slice<'b, 'v> {
    fn next(&mut self) -> Option<&'b (dyn Val + 'w)> {
        let item = self.items.get(self.pos)?;
        self.pos += 1;
        Some(item.as_ref())
    }
}
