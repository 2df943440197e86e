//! Helpers shared by integration tests.
pub mod fake_llm;
