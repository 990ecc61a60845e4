//! What of a node's value its rules can read, so that only that is
//! converted for CEL: `self.containers.all(c, c.port > 0)` reads the port
//! of each container, not its image, arguments or environment.
//!
//! The schema-aware walk records, per schema node, how each typed value is
//! used: a field selected, its entries iterated, indexed or counted, or the
//! value used whole (compared, passed to a function, put in a list...).
//! Anything the walk cannot follow is a whole use, so a `Need` never leaves
//! out what an evaluation reads.

use std::collections::HashMap;

use crate::schema::{Additional, Schema};

/// What of a value must be converted.
#[derive(Clone, Debug, PartialEq)]
pub enum Need {
    /// All of it.
    Whole,
    /// Of an object, the named fields (by JSON name) and what of each; of an
    /// object or a list, `entries`: every entry (item, or value of a map),
    /// each converted as the need says. A scalar is always converted whole.
    Part { fields: Vec<(String, Need)>, entries: Option<Box<Need>> },
}

/// Nothing is read: an object converts to an empty map, a list to an empty list.
pub static NOTHING: Need = Need::Part { fields: Vec::new(), entries: None };

impl Need {
    /// What either need reads.
    pub fn merge(self, other: Need) -> Need {
        match (self, other) {
            (Need::Whole, _) | (_, Need::Whole) => Need::Whole,
            (Need::Part { mut fields, entries }, Need::Part { fields: more, entries: more_entries }) => {
                for (name, need) in more {
                    match fields.iter().position(|(n, _)| *n == name) {
                        Some(i) => {
                            let mine = std::mem::replace(&mut fields[i].1, Need::Whole);
                            fields[i].1 = mine.merge(need);
                        }
                        None => fields.push((name, need)),
                    }
                }
                let entries = match (entries, more_entries) {
                    (Some(a), Some(b)) => Some(Box::new(a.merge(*b))),
                    (a, b) => a.or(b),
                };
                Need::Part { fields, entries }
            }
        }
    }

    /// What any of `needs` reads.
    pub fn merge_all<'n>(needs: impl IntoIterator<Item = &'n Need>) -> Need {
        needs.into_iter().fold(NOTHING.clone(), |all, need| all.merge(need.clone()))
    }

    /// The need of the field `name` (a field the walk did not see read is
    /// needed whole), with its position among the fields read by name.
    pub fn field(&self, name: &str) -> (&Need, Option<usize>) {
        match self {
            Need::Whole => (&Need::Whole, None),
            Need::Part { fields, entries } => match fields.iter().position(|(n, _)| n == name) {
                Some(i) => (&fields[i].1, Some(i)),
                None => (entries.as_deref().unwrap_or(&Need::Whole), None),
            },
        }
    }
}

#[derive(Default)]
struct Use {
    whole: bool,
    fields: Vec<String>,
    entries: bool,
}

/// How one walk used the values of each schema node. Keyed by the node's
/// address, which is stable while the walk borrows the schema; turned
/// into a `Need` (which holds no addresses) before the walk ends.
#[derive(Default)]
pub struct Uses {
    by_node: HashMap<*const Schema, Use>,
}

impl Uses {
    fn at(&mut self, node: &Schema) -> &mut Use {
        self.by_node.entry(node as *const Schema).or_default()
    }

    /// The value is used whole.
    pub fn whole(&mut self, node: &Schema) {
        self.at(node).whole = true;
    }

    /// The field `json_name` of the value is selected.
    pub fn field(&mut self, node: &Schema, json_name: &str) {
        let used = self.at(node);
        if !used.fields.iter().any(|f| f == json_name) {
            used.fields.push(json_name.to_string());
        }
    }

    /// The value's entries are iterated, indexed or counted.
    pub fn entries(&mut self, node: &Schema) {
        self.at(node).entries = true;
    }

    /// What is read of the value at `root`.
    pub fn need(&self, root: &Schema) -> Need {
        let Some(used) = self.by_node.get(&(root as *const Schema)) else { return NOTHING.clone() };
        if used.whole {
            return Need::Whole;
        }
        let child = |s: Option<&Schema>| s.map_or(Need::Whole, |s| self.need(s));
        let fields = used.fields.iter().map(|name| (name.clone(), child(root.entry(name)))).collect();
        let entries = used.entries.then(|| {
            Box::new(match (&root.items, &root.additional) {
                (Some(items), _) => self.need(items),
                (None, Additional::Schema(a)) => self.need(a),
                // A struct's keys are iterated; its values are read only
                // by indexing, which uses the object whole.
                _ => NOTHING.clone(),
            })
        });
        Need::Part { fields, entries }
    }
}
