//! Field paths built as a chain of borrowed segments and rendered only when
//! an error or a pruned field needs them, so walking a valid object
//! allocates no path strings.

use std::fmt;

/// A field path: `spec.items[2].name`.
#[derive(Clone, Copy, Debug)]
pub enum Path<'a> {
    /// Where the walk starts ("" for an object root).
    Base(&'a str),
    Field(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl<'a> Path<'a> {
    pub fn field(&'a self, name: &'a str) -> Path<'a> {
        Path::Field(self, name)
    }

    pub fn index(&'a self, i: usize) -> Path<'a> {
        Path::Index(self, i)
    }

    pub fn is_root(&self) -> bool {
        matches!(self, Path::Base(""))
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Base(base) => f.write_str(base),
            Path::Field(parent, name) if parent.is_root() => f.write_str(name),
            Path::Field(parent, name) => write!(f, "{parent}.{name}"),
            Path::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

impl From<&Path<'_>> for String {
    fn from(path: &Path<'_>) -> String {
        path.to_string()
    }
}
