//! Whether this build splits the page's parts off (`cfg(lazy_parts)`): only the page's own
//! wasm (feature `split`) built by `cargo leptos … --split`, which links with `--emit-relocs`
//! for its splitter. A plain `cargo leptos build` or `watch` gets plain async functions and a
//! page that hydrates whole; marking them `#[lazy]` there would leave the wasm importing a
//! placeholder module no one writes (`__wasm_split_placeholder__`), a page that never
//! hydrates.

// The build script reads cargo's environment: the domain's purity lints are not for it.
#![allow(clippy::disallowed_methods)]

fn main() {
    println!("cargo::rustc-check-cfg=cfg(lazy_parts)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=RUSTFLAGS");
    println!("cargo::rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "wasm32");
    let split = std::env::var_os("CARGO_FEATURE_SPLIT").is_some();
    let relocs = std::env::var("CARGO_ENCODED_RUSTFLAGS")
        .is_ok_and(|flags| flags.split('\x1f').any(|f| f.contains("--emit-relocs")));
    if wasm && split && relocs {
        println!("cargo::rustc-cfg=lazy_parts");
    }
}
