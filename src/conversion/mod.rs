//! Conversion of custom resources between the versions of their definition.
//! `declarative` is the Declarative strategy's engine: per version, the
//! rules that turn it into another version, reversed for the way back.

pub mod declarative;
