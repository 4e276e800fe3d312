//! `cargo fuzz run gen_spec`: see `irgc_fuzz_entry::gen_spec` for what it drives.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| irgc_fuzz_entry::gen_spec(data));
