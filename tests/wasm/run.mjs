// Runs the WebAssembly build of netschema-wasm-check in this JavaScript engine's WebAssembly
// runtime and checks that it decodes the recorded stream to the digest the host gives.
//
//   node tests/wasm/run.mjs target/wasm32-unknown-unknown/release/netschema_wasm_check.wasm
import { readFile } from "node:fs/promises";

const [wasmPath] = process.argv.slice(2);
const digestPath = new URL("./digest", import.meta.url);
const expected = (await readFile(digestPath, "utf8")).trim();
const { instance } = await WebAssembly.instantiate(await readFile(wasmPath), {});
const got = BigInt.asUintN(64, instance.exports.replay_recorded()).toString(16).padStart(16, "0");
if (got !== expected) {
  console.error(`the WebAssembly client decoded the recording to ${got}, the host to ${expected}`);
  process.exit(1);
}
console.log(`the WebAssembly client decoded the recording to ${got}, as the host does`);
