//! `cargo fuzz run param`: see `irgc_fuzz_entry::param` for what it drives.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| irgc_fuzz_entry::param(data));
