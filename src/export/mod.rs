//! The call graph written in other tools' formats, so that it merges with
//! what those tools already hold.
//!
//! * [`scip`] — a SCIP index (Sourcegraph's code-intelligence format):
//!   definitions, references at resolved call sites, implementation
//!   relationships, named as scip-python and scip-go name the same code.

pub mod scip;
