// sim kernels: see docs/wasm-abi.md.
