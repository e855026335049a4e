// Write camber capabilities in JavaScript.
//
// A component declares its capabilities (and prompts) on a `Plugin`; its entry module binds
// the host's interfaces and exports the contract's functions:
//
//   import * as host from './host.js';            // the template's: camber:capability/* imports
//   export const { describe, prompts, getPrompt, call } = plugin.exports(host);
//
// componentize-js builds it against camber's WIT contract (`wit/`) into a `_cap_<name>.wasm`
// the host loads exactly as it loads a Rust one. Data comes only through `store`, whose reads
// the host checks against the call in progress.

import { name, oneLine } from './text.js';

export { name, oneLine, NAME_MAX_CHARS } from './text.js';

/** Every code a refusal may carry, as the host and its callers spell them. */
export const CODES = [
  'invalid_params',
  'unknown_capability',
  'not_found',
  'not_allowed',
  'refused_licence',
  'too_large',
  'timeout',
  'unavailable',
  'internal',
];

/** A refusal: a code of CODES, a one-line message and optional JSON data (an object). */
export class CapError extends Error {
  constructor(code, message, data = null) {
    if (!CODES.includes(code)) throw new TypeError(`unknown error code '${code}'; one of ${CODES.join(', ')}`);
    const line = oneLine(String(message));
    super(`${code}: ${line}`);
    this.code = code;
    this.detail = line;
    this.data = data;
  }
  /** The arguments cannot be served as given. */
  static invalid(message) {
    return new CapError('invalid_params', message);
  }
  /** Something the arguments name does not exist. */
  static notFound(message, data = null) {
    return new CapError('not_found', message, data);
  }
  /** A defect of the capability itself. */
  static internal(message) {
    return new CapError('internal', message);
  }
}

/** The largest page a caller may ask for. */
export const MAX_LIMIT = 1000;

/** A whole-number argument such as `offset` or `limit`; `fallback` when absent or not a
 * non-negative number. */
export function countArg(args, key, fallback) {
  const v = args?.[key];
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : fallback;
}

/** `rows` cut to [offset, offset + limit) (limit clamped to 1..MAX_LIMIT) and the notice to
 * return in the output's `pages` when the page is not the whole list (else null). */
export function page(rows, list, offset, limit, order = '') {
  const total = rows.length;
  limit = Math.min(Math.max(limit, 1), MAX_LIMIT);
  if (total === 0 || (offset === 0 && total <= limit)) return [rows, null];
  const u32 = (n) => Math.min(n, 0xffffffff);
  return [rows.slice(offset, offset + limit), { list, offset: u32(offset), limit, total: u32(total), order }];
}

/** `not_found` for selection values a facility does not store (an equipment, a role). */
export function unknownSelection(facilityId, argument, label, missing, stored) {
  const all = [...new Set(stored)].sort();
  const shown = all.slice(0, 10).map(name).join(', ') || 'none';
  const more = all.length > 10 ? ` and ${all.length - 10} more` : '';
  return CapError.notFound(
    `facility '${facilityId}' stores no ${label} ${missing.map(name).join(', ')}; it stores ${shown}${more}`,
    { argument, unknown: missing, available: all.slice(0, 50) },
  );
}

// What answers the store reads: the host's interfaces in a component (bound by
// `Plugin.exports`), a fake in a native test (`withFakeStore` of ./testing.js).
let backend = null;

/** @internal */
export function setBackend(b) {
  const saved = backend;
  backend = b;
  return saved;
}

function host() {
  if (!backend) {
    throw new CapError('unavailable', 'no host to read from: outside a component, use withFakeStore of testing.js');
  }
  return backend;
}

// a failed host read arrives as a thrown error whose payload is the contract's store-error
function read(f) {
  try {
    return f();
  } catch (e) {
    if (e instanceof CapError) throw e;
    const p = e?.payload;
    if (p && typeof p.code === 'string') throw new CapError(p.code.replaceAll('-', '_'), p.message);
    throw e;
  }
}

const bound = (v) => (v === undefined || v === null ? undefined : BigInt(v));

/** Read-only access to the building data. Times are the site's wall clock in nanoseconds
 * (BigInt). Every read is checked by the host against the call; a refused read throws a
 * CapError with the host's code. */
export const store = {
  /** The facilities this call may list. */
  facilities: () => read(() => host().store.facilities()),
  /** The stored points of one facility ({equip, equipClass, role}), sorted. */
  points: (facilityId) => read(() => host().store.points(facilityId)),
  /** One point's samples in [startNs, endNs]: {ts: BigInt64Array, values: Float64Array}. */
  readSeries: (facilityId, equip, role, startNs, endNs) =>
    read(() => host().store.readSeries(facilityId, equip, role, bound(startNs), bound(endNs))),
  /** Every point's sample times as runs ({start, step, count}); empty lists mean all. */
  readTimes: (facilityId, equips = [], roles = [], startNs, endNs) =>
    read(() => host().store.readTimes(facilityId, equips, roles, bound(startNs), bound(endNs))),
  /** One equipment's roles as aligned columns (NaN where a role has no sample). */
  readFrame: (facilityId, equip, roles, startNs, endNs) =>
    read(() => host().store.readFrame(facilityId, equip, roles, bound(startNs), bound(endNs))),
  /** Every equipment's frame on a grid of `stepNs`, in one pass; empty `equips` means all. */
  readGrid: (facilityId, stepNs, equips = [], startNs, endNs) =>
    read(() => host().store.readGrid(facilityId, equips, bound(startNs), bound(endNs), BigInt(stepNs))),
  /** The run config a run of this facility uses: {config, source, from_config, banners, min_trust}. */
  runConfig: (facilityId) => JSON.parse(read(() => host().runConfig.runConfig(facilityId))),
  /** The dataset catalog (public metadata, no building data), sorted by id. */
  catalog: () => JSON.parse(host().catalog.datasetCatalog()),
  /** The catalog with only these top-level keys of each entry. */
  catalogFields: (keys) => JSON.parse(host().catalog.datasetFields(keys)),
  /** The catalog entry with this id, or null. */
  catalogEntry: (id) => {
    const t = host().catalog.datasetEntry(id);
    return t === undefined || t === null ? null : JSON.parse(t);
  },
};

/** A frame's timestamps (BigInt), whether it lists them or gives start and step. */
export function frameTimes(f) {
  if (f.ts.length) return Array.from(f.ts);
  return Array.from({ length: f.len }, (_, i) => f.start + BigInt(i) * f.step);
}

/** Tell the host how far the call's work has gone. Never fails; without a host it does nothing. */
export function progress(done, total, message) {
  const clamp = (n) => Math.max(0, Math.min(Math.floor(n), 0xffffffff));
  if (backend?.progress) backend.progress.report(clamp(done), clamp(total), String(message));
}

/** Everything one component exports: its capabilities and prompts. */
export class Plugin {
  constructor() {
    this.capabilities = [];
    this.prompts = [];
  }

  /** Offer a capability: {name, handler, title, description, inputSchema, outputSchema,
   * version, cost, annotations, ownOutput}. A capability without a description is refused
   * at load. The handler takes (args, ctx) and returns {data, text, facts, banners?, pages?}. */
  capability(c) {
    if (this.capabilities.some((o) => o.name === c.name)) throw new Error(`two capabilities named '${c.name}'`);
    this.capabilities.push({
      version: '1.0.0',
      title: c.name,
      description: '',
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object' },
      cost: 'cheap',
      annotations: [],
      ownOutput: [],
      ...c,
    });
    return this;
  }

  /** Offer a prompt: {name, render, title, description, arguments: [{name, description, required}]}. */
  prompt(p) {
    this.prompts.push({ title: p.name, description: '', arguments: [], ...p });
    return this;
  }

  /** Run one capability natively (a test calls its handlers this way): the output, or a
   * thrown CapError. */
  call(name, argumentsJson, ctx) {
    const cap = this.capabilities.find((c) => c.name === name);
    if (!cap) throw new CapError('unknown_capability', `no capability named '${name}'`);
    let args;
    try {
      args = JSON.parse(argumentsJson);
    } catch (e) {
      throw CapError.invalid(`arguments are not JSON: ${e.message}`);
    }
    const out = cap.handler(args, ctx);
    if (!out || typeof out.text !== 'string' || typeof out.data !== 'object') {
      throw CapError.internal(`'${name}' returned no output ({data, text, facts})`);
    }
    return out;
  }

  /** The contract's exports, bound to the host's interfaces ({store, runConfig, catalog,
   * progress} as the component imports them). */
  exports(hostInterfaces) {
    backend = hostInterfaces;
    const plugin = this;
    const refusal = (e, name) => {
      let err = e;
      if (!(e instanceof CapError)) {
        console.error(e?.stack ?? String(e));
        err = CapError.internal(`'${name}' raised ${e?.name ?? 'an error'}: ${e?.message ?? String(e)}`);
      }
      const payload = {
        code: err.code.replaceAll('_', '-'),
        message: err.detail,
        data: err.data === null || err.data === undefined ? undefined : JSON.stringify(err.data),
      };
      return Object.assign(new Error(err.detail), { payload });
    };
    return {
      describe: () =>
        plugin.capabilities.map((c) => ({
          name: c.name,
          version: c.version,
          title: c.title,
          description: c.description,
          inputSchema: JSON.stringify(c.inputSchema),
          outputSchema: JSON.stringify(c.outputSchema),
          cost: c.cost,
          annotations: c.annotations.map(([k, v]) => [String(k), String(v)]),
          ownOutput: [...c.ownOutput],
        })),
      prompts: () =>
        plugin.prompts.map((p) => ({
          name: p.name,
          title: p.title,
          description: p.description,
          arguments: p.arguments.map((a) => ({ name: a.name, description: a.description, required: !!a.required })),
        })),
      getPrompt: (name, args) => {
        const p = plugin.prompts.find((q) => q.name === name);
        if (!p) throw refusal(new CapError('unknown_capability', `no prompt named '${name}'`), name);
        try {
          return String(p.render(Object.fromEntries(args)));
        } catch (e) {
          throw refusal(e, name);
        }
      },
      call: (name, args, ctx) => {
        const context = {
          allowedFacilities: [...ctx.allowedFacilities],
          minTrust: ctx.minTrust,
          maxRows: ctx.maxRows,
          caller: ctx.caller,
        };
        try {
          const out = plugin.call(name, args, context);
          return {
            data: JSON.stringify(out.data),
            text: out.text,
            facts: JSON.stringify(out.facts ?? []),
            banners: (out.banners ?? []).map(String),
            pages: (out.pages ?? [])
              .filter((n) => n)
              .map((n) => ({ key: n.list, offset: n.offset, limit: n.limit, total: n.total, order: n.order })),
          };
        } catch (e) {
          throw refusal(e, name);
        }
      },
    };
  }
}
