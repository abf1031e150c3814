// HTTP requests from a chosen loopback source address: the soak tool's helper (one home for it).
export { postJsonFrom, type Reply, requestFrom } from "../../ts/tools/soak/http-from.js";
