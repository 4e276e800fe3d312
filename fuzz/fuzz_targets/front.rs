//! `cargo fuzz run front`: see `irgc_fuzz_entry::front` for what it drives.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| irgc_fuzz_entry::front(data));
