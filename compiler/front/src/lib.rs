//! front
