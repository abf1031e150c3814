// blit kernels: see docs/wasm-abi.md.
