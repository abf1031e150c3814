// The Forgotten Caves core module: every kernel shared by server, client, bots
// and other hosts. The ABI (exports and memory regions) is documented in
// docs/wasm-abi.md; region offsets come from ./layout.
export * from "./layout";
export * from "./codec";
export * from "./sim";
export * from "./pathfind";
export * from "./blit";
