// The text rules every answer keeps: one line, no invisible characters, and a value from the
// data written with `name()` so it can never pass for the capability's own words, a citation,
// markup or a link. They behave exactly as the Rust SDK's (camber_common::text); the host's
// tests run both on the same hostile strings.

/** A name from the data is cut to this many characters in text. */
export const NAME_MAX_CHARS = 100;

const INVISIBLE = new RegExp(
  '[\\u0000-\\u0008\\u000B\\u000E-\\u001F\\u007F-\\u009F\\u00AD\\u034F\\u061C\\u115F\\u1160' +
    '\\u17B4\\u17B5\\u180B-\\u180F\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u206F\\u3164' +
    '\\uFE00-\\uFE0F\\uFEFF\\uFFA0\\uFFF0-\\uFFFB\\u{1D173}-\\u{1D17A}\\u{E0000}-\\u{E007F}]',
  'gu',
);
const SPACE = /[\n\r\t\f\u0085\u2028\u2029]/g;
// a terminal escape: a control sequence (ESC [ or CSI, parameters, intermediates, a final), a
// string (ESC ] P X ^ _ up to BEL, ST or ESC \), or an escape with intermediates and a final;
// an introducer that starts no whole sequence is removed alone
const ESCAPE = new RegExp(
  '(?:\\u001B\\[|\\u009B)[\\u0030-\\u003F]*[\\u0020-\\u002F]*[\\u0040-\\u007E]' +
    '|\\u001B[\\]PX^_][^\\u0007\\u009C]*?(?:\\u0007|\\u009C|\\u001B\\\\)' +
    '|\\u001B[\\u0020-\\u002F]+[\\u0030-\\u007E]' +
    '|\\u001B[\\u0030-\\u007E]' +
    '|[\\u001B\\u009B]',
  'g',
);
const FACT_ID = /^[A-Za-z]+[0-9]+(?:@[A-Za-z0-9_-]+)?$/;
const BRACKET = /\[([^[\]]*)\]/g;
const WWW = /(www)\./gi;

/** `s` on one line: line breaks, tabs and form feeds become spaces, terminal escape
 * sequences are removed whole, invisible and control characters are removed. */
export function oneLine(s) {
  s = String(s);
  if (s.includes('\u001B') || s.includes('\u009B')) s = s.replace(ESCAPE, '');
  return s.replace(SPACE, ' ').replace(INVISIBLE, '');
}

/** Whether `s` is a fact id as citations write it (`F1`, `F1@points`). */
export function isFactId(s) {
  return FACT_ID.test(s);
}

/** `s` with every fact-id bracket `[F1@x]` written `(F1@x)`, so it cites nothing. */
export function defuseCitations(s) {
  return s.replace(BRACKET, (m, inner) => (isFactId(inner) ? `(${inner})` : m));
}

/** `s` cut to at most `max` characters (its head, an ellipsis and six hex digits of a hash
 * of the whole value), or `null` when it is short enough. */
export function cut(s, max) {
  const chars = Array.from(s);
  if (chars.length <= max) return null;
  return chars.slice(0, Math.max(max - 7, 0)).join('') + '\u2026' + sha256Hex(s).slice(0, 6);
}

/** A value from the data (an equipment id, a class, a role, a unit) as text may name it:
 * one line, quoted, citations defused, markup and links defanged, inner double quotes read
 * `'`, cut at NAME_MAX_CHARS characters. */
export function name(value) {
  let s = defuseCitations(oneLine(value));
  s = s.replaceAll('<', '\u2039').replaceAll('>', '\u203A').replaceAll('](', '] (');
  s = s.replaceAll('://', '[:]//').replace(WWW, '$1[.]').replaceAll('"', "'");
  const c = cut(s, NAME_MAX_CHARS);
  return `"${c ?? s}"`;
}

// SHA-256 of a string's UTF-8 bytes, as hex: what keeps two cut names apart (the component's
// JavaScript engine has no synchronous digest).
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

export function sha256Hex(s) {
  const bytes = new TextEncoder().encode(s);
  const padded = new Uint8Array(((bytes.length + 72) >> 6) << 6);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 4, bytes.length * 8);
  view.setUint32(padded.length - 8, Math.floor(bytes.length / 0x20000000));
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + 4 * i);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      [hh, g, f, e, d, c, b, a] = [g, f, e, (d + t1) >>> 0, c, b, a, (t1 + t2) >>> 0];
    }
    [a, b, c, d, e, f, g, hh].forEach((v, i) => (h[i] = (h[i] + v) >>> 0));
  }
  return Array.from(h, (v) => v.toString(16).padStart(8, '0')).join('');
}
