//! `cargo fuzz run specs`: see `irgc_fuzz_entry::specs` for what it drives.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| irgc_fuzz_entry::specs(data));
