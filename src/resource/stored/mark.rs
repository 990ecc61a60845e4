//! The mark of a stored object: JSON whitespace after it (a newline and 32
//! spaces, tabs, carriage returns and newlines, two bits each) holding a
//! 64-bit fingerprint of the storage version's schema it was pruned and
//! defaulted by (`super`'s header says what it buys).

/// The meaning of a mark: bump it when pruning or defaulting change what
/// they do to the same schema, so older marks stop matching.
const MARK_VERSION: u8 = 1;

/// The symbols of a mark, two bits each.
const SYMBOLS: [u8; 4] = [b' ', b'\t', b'\r', b'\n'];

/// A newline, then 32 symbols.
const MARK_LEN: usize = 33;

/// The fingerprint of a storage version's schema (its `openAPIV3Schema` as
/// JSON, none for a version without one): FNV-1a, stable across builds, as
/// it is stored.
pub fn fingerprint(schema_json: Option<&str>) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |byte: u8| {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    };
    eat(MARK_VERSION);
    match schema_json {
        Some(json) => json.bytes().for_each(&mut eat),
        None => eat(0),
    }
    hash
}

pub fn append_mark(bytes: &mut Vec<u8>, mark: u64) {
    bytes.push(b'\n');
    bytes.extend((0..32).map(|i| SYMBOLS[((mark >> (2 * i)) & 3) as usize]));
}

/// The JSON of stored bytes, and their mark when they carry one.
pub fn split_mark(value: &[u8]) -> (&[u8], Option<u64>) {
    let Some(at) = value.len().checked_sub(MARK_LEN) else { return (value, None) };
    let (json, mark) = value.split_at(at);
    if mark[0] != b'\n' || !json.ends_with(b"}") {
        return (value, None);
    }
    let mut fingerprint = 0u64;
    for (i, symbol) in mark[1..].iter().enumerate() {
        // SYMBOLS' positions.
        let bits: u64 = match symbol {
            b' ' => 0,
            b'\t' => 1,
            b'\r' => 2,
            b'\n' => 3,
            _ => return (value, None),
        };
        fingerprint |= bits << (2 * i);
    }
    (json, Some(fingerprint))
}
