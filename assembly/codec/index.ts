// codec kernels: see docs/wasm-abi.md.
