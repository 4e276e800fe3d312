//! Graph generators (see the crate description).
