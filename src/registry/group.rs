//! A definition's group settled in the commit that writes it: its accepted
//! names judged against the other definitions of its group (oldest first),
//! and those others whose names change by the write rewritten beside it,
//! each tied to the revision it was read at.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use super::definition::{self, Definition};
use super::name_of;
use super::naming::{self, Claimed};
use crate::error::Result;
use crate::storage::{keys, KeyValue, Op, ReadAt, Storage};

/// A definition as stored, with its key-value.
pub(super) struct Stored {
    pub kv: KeyValue,
    pub crd: Definition,
}

/// Every stored definition at the latest revision.
pub(super) fn all_stored(store: &dyn Storage) -> Result<Vec<Stored>> {
    let range = store.range(&keys::definitions_prefix(), None, ReadAt::Latest, 0, &mut |_| true)?;
    range.items.into_iter().map(|kv| Ok(Stored { crd: definition::decode(&kv)?, kv })).collect()
}

/// The writes that settle the group of the definition `name` with `this`
/// written (`None`: removed): `this` takes the names its group leaves it,
/// and each other definition of the group whose status changes is
/// rewritten, tied to the revision it was read at.
pub fn settle(store: &dyn Storage, name: &str, this: Option<&mut Definition>) -> Result<Vec<Op>> {
    let group = match &this {
        Some(crd) => crd.spec.group.clone(),
        None => match store.get(&keys::definition_key(name)) {
            Some(kv) => definition::decode(&kv)?.crd.spec.group,
            None => return Ok(Vec::new()),
        },
    };
    let mut others = all_stored(store)?;
    others.retain(|s| s.crd.spec.group == group && name_of(&s.crd) != name);
    let this = this.map(|crd| {
        let claimed = Claimed::in_group(others.iter().map(|s| &s.crd.crd), &group, name);
        naming::accept_names(crd, &claimed);
        &*crd
    });
    Ok(settle_others(&group, &mut others, this.map(|crd| &crd.crd)))
}

/// Re-evaluates the names of `others` (oldest first) against each other
/// and `this`; returns the writes for those whose status changed.
fn settle_others(group: &str, others: &mut [Stored], this: Option<&CustomResourceDefinition>) -> Vec<Op> {
    others.sort_by_key(|s| s.kv.create_revision);
    let mut ops = Vec::new();
    for i in 0..others.len() {
        let name = name_of(&others[i].crd).to_string();
        let claimed = Claimed::in_group(others.iter().map(|s| &s.crd.crd).chain(this), group, &name);
        let mut crd = others[i].crd.clone();
        crd.metadata.resource_version = None;
        naming::accept_names(&mut crd, &claimed);
        if crd.status != others[i].crd.status {
            let bytes = definition::to_stored(&crd);
            ops.push(Op::update(keys::definition_key(&name), others[i].kv.mod_revision, bytes));
            others[i].crd = crd;
        }
    }
    ops
}

/// Held by every write of a definition from settling its group to its
/// commit: each one re-reads the names of its whole group, which must not
/// interleave with another. One for the process: a server has one store.
pub static WRITES: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
