//! `cargo fuzz run graph_file`: see `irgc_fuzz_entry::graph_file` for what it drives.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| irgc_fuzz_entry::graph_file(data));
