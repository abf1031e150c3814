// A tiny hand-assembled wasm module holding two dependent arithmetic chains,
// used as the speed bound of FNV-1a: FNV is one serial chain per byte
// (hash = (hash ^ byte) * prime), so no implementation can beat the latency
// of an xor followed by a 32-bit multiply, repeated once per byte.
//
//   (func (export "mul_chain") (param $n i32) (param $h i32) (result i32)
//     loop: h = h * 16777619; n -= 1; br_if n
//   (func (export "xor_mul_chain") (param $n i32) (param $h i32) (result i32)
//     loop: h = (h ^ n) * 16777619; n -= 1; br_if n
//
// The loop counter and branch do not depend on h, so an out-of-order core runs
// them beside the chain: the time per iteration is the chain's latency
// (3 cycles for imul alone, 4 with the xor on typical x86 cores).

function signedLeb(value: number): number[] {
  const bytes: number[] = [];
  let v = value | 0;
  for (;;) {
    const byte = v & 0x7f;
    v >>= 7;
    const done = (v === 0 && (byte & 0x40) === 0) || (v === -1 && (byte & 0x40) !== 0);
    bytes.push(done ? byte : byte | 0x80);
    if (done) return bytes;
  }
}

function section(id: number, body: number[]): number[] {
  return [id, ...unsignedLeb(body.length), ...body];
}

function unsignedLeb(value: number): number[] {
  const bytes: number[] = [];
  let v = value >>> 0;
  do {
    const byte = v & 0x7f;
    v >>>= 7;
    bytes.push(v !== 0 ? byte | 0x80 : byte);
  } while (v !== 0);
  return bytes;
}

function name(text: string): number[] {
  return [text.length, ...Array.from(text, (c) => c.charCodeAt(0))];
}

const PRIME = signedLeb(16777619);
const I32 = 0x7f;
// local.get 0 = n, local.get 1 = h
const MUL_BODY = [
  0x00, // no extra locals
  0x03,
  0x40, // loop (void)
  0x20,
  0x01,
  0x41,
  ...PRIME,
  0x6c,
  0x21,
  0x01, // h = h * prime
  0x20,
  0x00,
  0x41,
  0x01,
  0x6b,
  0x22,
  0x00, // n = n - 1 (tee)
  0x0d,
  0x00, // br_if 0
  0x0b, // end loop
  0x20,
  0x01, // h
  0x0b, // end func
];
const XOR_MUL_BODY = [
  0x00,
  0x03,
  0x40,
  0x20,
  0x01,
  0x20,
  0x00,
  0x73,
  0x41,
  ...PRIME,
  0x6c,
  0x21,
  0x01, // h = (h ^ n) * prime
  0x20,
  0x00,
  0x41,
  0x01,
  0x6b,
  0x22,
  0x00,
  0x0d,
  0x00,
  0x0b,
  0x20,
  0x01,
  0x0b,
];

export function chainModuleBytes(): Uint8Array<ArrayBuffer> {
  const types = section(1, [1, 0x60, 2, I32, I32, 1, I32]);
  const functions = section(3, [2, 0, 0]);
  const exports = section(7, [2, ...name("mul_chain"), 0, 0, ...name("xor_mul_chain"), 0, 1]);
  const code = section(10, [
    2,
    ...unsignedLeb(MUL_BODY.length),
    ...MUL_BODY,
    ...unsignedLeb(XOR_MUL_BODY.length),
    ...XOR_MUL_BODY,
  ]);
  return Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...types, ...functions, ...exports, ...code]);
}

export interface ChainModule {
  mulChain: (n: number, h: number) => number;
  xorMulChain: (n: number, h: number) => number;
}

export async function loadChainModule(): Promise<ChainModule> {
  const instance = await WebAssembly.instantiate(await WebAssembly.compile(chainModuleBytes()));
  const exports = instance.exports as unknown as {
    mul_chain: ChainModule["mulChain"];
    xor_mul_chain: ChainModule["xorMulChain"];
  };
  return { mulChain: exports.mul_chain, xorMulChain: exports.xor_mul_chain };
}
