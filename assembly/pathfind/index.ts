// pathfind kernels: see docs/wasm-abi.md.
