// The wire protocol (docs/protocol.md): one module per packet or concept.
export * from "./bytes.js";
export * from "./errors.js";
export * from "./header.js";
export * from "./chunk-id.js";
export * from "./state.js";
export * from "./action.js";
export * from "./chunk.js";
export * from "./tlv.js";
export * from "./entity.js";
export * from "./entity-checksum.js";
export * from "./entity-query.js";
export * from "./entity-detail.js";
export * from "./ping.js";
export * from "./packet.js";
