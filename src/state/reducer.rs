//! Reducers of the JSON channels: `merge`, `append`, `union`, `counter`, `replace` (DESIGN §3),
//! and the domain rules of the default channels ([`Kind`]).
//!
//! [`reduce`] applies one command's update to a channel value in place and returns the keys the
//! update wrote, so a batch can detect two commands writing the same key. It may leave the value
//! half-updated when it fails: the store restores the channel from its journal.

use super::domain;
use super::schema::{ChannelSpec, Kind, OnConflict, Reducer};
use crate::error::{Error, ErrorCode, Result};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// What an update wrote, for conflict detection within a batch.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Written {
    /// Keys that conflict when two commands of one batch write them (`""` = the whole channel).
    pub conflicting: Vec<String>,
}

impl Written {
    fn whole() -> Self {
        Written { conflicting: vec![String::new()] }
    }
}

/// `INVALID_UPDATE` on `channel`; the message names the expected shape, never the value.
pub(crate) fn invalid(channel: &str, what: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidUpdate, format!("channel '{channel}': {}", what.into())).channel(channel)
}

/// Applies `update` to `value` under the channel's reducer and domain rules.
pub(crate) fn reduce(spec: &ChannelSpec, value: &mut Value, update: &Value) -> Result<Written> {
    match spec.kind {
        Kind::Generic => {}
        Kind::Run => return domain::reduce_run(spec, value, update),
        Kind::Plan => return domain::reduce_plan(spec, value, update),
        Kind::Approvals => return domain::reduce_approvals(spec, value, update),
        Kind::Budget => return domain::reduce_budget(spec, value, update),
        Kind::Todos => return domain::reduce_todos(spec, value, update),
        Kind::Records => return domain::reduce_records(spec, value, update, |_, _, _| Ok(())),
        Kind::Tasks => return domain::reduce_tasks(spec, value, update),
    }
    let name = spec.name.as_str();
    match spec.reducer {
        Reducer::Replace => {
            spec.value_type.check(update, name)?;
            *value = update.clone();
            Ok(Written::whole())
        }
        Reducer::Counter => {
            spec.value_type.check(update, name)?;
            let (Some(a), Some(_)) = (value.as_f64(), update.as_f64()) else {
                return Err(invalid(name, "a counter update is a number to add"));
            };
            *value = match (value.as_i64(), update.as_i64()) {
                (Some(x), Some(y)) => {
                    x.checked_add(y).map(Value::from).ok_or_else(|| invalid(name, "the counter overflowed"))?
                }
                _ => serde_json::Number::from_f64(a + update.as_f64().unwrap_or(0.0))
                    .map(Value::Number)
                    .ok_or_else(|| invalid(name, "the counter is not a finite number"))?,
            };
            Ok(Written::default())
        }
        Reducer::Append | Reducer::Union => {
            let items = update.as_array().ok_or_else(|| invalid(name, "an update is a list of items to add"))?;
            for (i, item) in items.iter().enumerate() {
                spec.value_type.check(item, name).map_err(|e| e.at(i))?;
            }
            let list = list_mut(value, name)?;
            if spec.reducer == Reducer::Append {
                list.extend(items.iter().cloned());
            } else {
                // Equal JSON values are duplicates whatever their keys' order (canonical text).
                let key = |v: &Value| {
                    let mut out = Vec::new();
                    crate::log::canonical::write(v, &mut out);
                    out
                };
                let mut seen: HashSet<Vec<u8>> = list.iter().map(key).collect();
                for item in items {
                    if seen.insert(key(item)) {
                        list.push(item.clone());
                    }
                }
            }
            Ok(Written::default())
        }
        Reducer::Merge => merge(spec, value, update, |_, _, new| {
            spec.value_type.check(new, name)?;
            Ok(new.clone())
        }),
        Reducer::Messages => Err(invalid(name, "internal: a messages channel has no JSON reducer")),
    }
}

/// The list a channel holds (`INVALID_UPDATE` if a replace made it something else).
fn list_mut<'a>(value: &'a mut Value, name: &str) -> Result<&'a mut Vec<Value>> {
    if value.is_null() {
        *value = Value::Array(Vec::new());
    }
    value.as_array_mut().ok_or_else(|| invalid(name, "the channel does not hold a list"))
}

/// The object a channel holds.
pub(crate) fn object_mut<'a>(value: &'a mut Value, name: &str) -> Result<&'a mut Map<String, Value>> {
    if value.is_null() {
        *value = Value::Object(Map::new());
    }
    value.as_object_mut().ok_or_else(|| invalid(name, "the channel does not hold an object"))
}

/// Merge by key: `null` deletes the key; any other value goes through `put(key, old, new)`, which
/// validates and returns the value to store. Keys conflict in a batch unless the channel says
/// `onConflict: "callOrder"`.
pub(crate) fn merge(
    spec: &ChannelSpec,
    value: &mut Value,
    update: &Value,
    mut put: impl FnMut(&str, Option<&Value>, &Value) -> Result<Value>,
) -> Result<Written> {
    let name = spec.name.as_str();
    let patch =
        update.as_object().ok_or_else(|| invalid(name, "an update is an object of keys to set (null deletes)"))?;
    let map = object_mut(value, name)?;
    let mut written = Written::default();
    for (key, new) in patch {
        if new.is_null() {
            map.shift_remove(key);
        } else {
            let stored = put(key, map.get(key), new).map_err(|e| e.field(key.clone()))?;
            map.insert(key.clone(), stored);
        }
        if spec.on_conflict == OnConflict::Error {
            written.conflicting.push(key.clone());
        }
    }
    Ok(written)
}

/// `patch`'s fields set on `old` (a record), `null` deleting a field.
pub(crate) fn merge_record(old: Option<&Value>, patch: &Map<String, Value>) -> Map<String, Value> {
    let mut record = old.and_then(Value::as_object).cloned().unwrap_or_default();
    for (k, v) in patch {
        if v.is_null() {
            record.shift_remove(k);
        } else {
            record.insert(k.clone(), v.clone());
        }
    }
    record
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::schema::ValueType;
    use serde_json::json;

    fn run(spec: &ChannelSpec, start: Value, update: Value) -> Result<Value> {
        let mut v = start;
        reduce(spec, &mut v, &update)?;
        Ok(v)
    }

    #[test]
    fn generic_reducers() {
        let merge = ChannelSpec::new("m", Reducer::Merge);
        assert_eq!(run(&merge, json!({"a": 1, "b": 2}), json!({"b": null, "c": 3})).unwrap(), json!({"a": 1, "c": 3}));
        let append = ChannelSpec::new("l", Reducer::Append);
        assert_eq!(run(&append, json!([1]), json!([1, 2])).unwrap(), json!([1, 1, 2]));
        let union = ChannelSpec::new("u", Reducer::Union);
        assert_eq!(
            run(&union, json!([{"r": 1}]), json!([{"r": 1}, {"r": 2}, {"r": 2}])).unwrap(),
            json!([{"r": 1}, {"r": 2}])
        );
        let counter = ChannelSpec::new("n", Reducer::Counter);
        assert_eq!(run(&counter, json!(2), json!(3)).unwrap(), json!(5));
        assert_eq!(run(&counter, json!(2), json!(0.5)).unwrap(), json!(2.5));
        let replace = ChannelSpec::new("r", Reducer::Replace);
        assert_eq!(run(&replace, json!(1), json!({"x": 1})).unwrap(), json!({"x": 1}));
    }

    #[test]
    fn value_types_are_checked_without_echoing_values() {
        let mut s = ChannelSpec::new("secret", Reducer::Merge);
        s.value_type = ValueType::String;
        let e = run(&s, json!({}), json!({"k": 12345678})).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidUpdate);
        assert_eq!(e.field.as_deref(), Some("k"));
        assert!(!e.message.contains("12345678"));
        let counter = ChannelSpec::new("n", Reducer::Counter);
        assert_eq!(run(&counter, json!(1), json!("2")).unwrap_err().code, ErrorCode::InvalidUpdate);
        let append = ChannelSpec::new("l", Reducer::Append);
        assert_eq!(run(&append, json!([]), json!(1)).unwrap_err().code, ErrorCode::InvalidUpdate);
    }

    #[test]
    fn merge_reports_conflicting_keys_unless_call_order() {
        let mut s = ChannelSpec::new("files", Reducer::Merge);
        let mut v = json!({});
        assert_eq!(reduce(&s, &mut v, &json!({"/a": "x"})).unwrap().conflicting, vec!["/a".to_string()]);
        s.on_conflict = OnConflict::CallOrder;
        assert!(reduce(&s, &mut v, &json!({"/a": "y"})).unwrap().conflicting.is_empty());
    }
}
