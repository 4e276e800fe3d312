//! Verification references (see the crate description).
