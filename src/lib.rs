//! ripple: the blast radius of any function in a Python or Go repository.
pub mod bench;
pub mod blast;
pub mod context;
pub mod graph;
pub mod index;
pub mod inventory;
pub mod lang;
pub mod lookup;
pub mod model;
pub mod resolve;
pub mod review;
pub mod store;
pub mod tokens;
pub mod tui;
