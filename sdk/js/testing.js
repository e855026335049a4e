// Native tests of a JavaScript capability (`node --test`): a stand-in for the host's store,
// answering as the host would for a call that may read only `allowed`.

import { CapError, setBackend } from './camber_sdk.js';

/** Run `f` with store reads answered from `points` ([equip, equipClass, role] triples) and
 * `series` ({"equip/role": {ts: [...], values: [...]}}); reads of other facilities are
 * `not_allowed`. Returns what `f` returns; `reports` collects progress reports. */
export function withFakeStore({ allowed, points, series = {}, config = {}, catalog = [] }, f) {
  const check = (fid) => {
    if (!allowed.includes(fid)) throw new CapError('not_allowed', `facility '${fid}' is not in this call's allowlist`);
  };
  const reports = [];
  const fake = {
    store: {
      facilities: () => {
        throw new CapError('unavailable', 'the fake store lists no facilities');
      },
      points: (fid) => {
        check(fid);
        return points
          .map(([equip, equipClass, role]) => ({ equip, equipClass, role }))
          .sort((a, b) => (a.equip + '\0' + a.equipClass + '\0' + a.role < b.equip + '\0' + b.equipClass + '\0' + b.role ? -1 : 1));
      },
      readSeries: (fid, equip, role, start, end) => {
        check(fid);
        const s = series[`${equip}/${role}`];
        if (!s) throw new CapError('not_found', `no point ${equip}/${role}`);
        const keep = s.ts.map((t, i) => [BigInt(t), s.values[i]]).filter(([t]) => (start === undefined || t >= start) && (end === undefined || t <= end));
        return { ts: BigInt64Array.from(keep.map((k) => k[0])), values: Float64Array.from(keep.map((k) => k[1])) };
      },
    },
    runConfig: {
      runConfig: (fid) => {
        check(fid);
        return JSON.stringify({ config, source: 'store', from_config: [], banners: [], min_trust: 0.5 });
      },
    },
    catalog: {
      datasetCatalog: () => JSON.stringify(catalog),
      datasetFields: (keys) => JSON.stringify(catalog.map((e) => Object.fromEntries(keys.filter((k) => k in e).map((k) => [k, e[k]])))),
      datasetEntry: (id) => {
        const e = catalog.find((x) => x.id === id);
        return e ? JSON.stringify(e) : undefined;
      },
    },
    progress: { report: (done, total, message) => reports.push([done, total, message]) },
  };
  const saved = setBackend(fake);
  try {
    return f(reports);
  } finally {
    setBackend(saved);
  }
}

/** A call context such as the host passes: the facilities the caller may read. */
export function context(allowed, maxRows = 1000) {
  return { allowedFacilities: [...allowed].sort(), minTrust: 0.5, maxRows, caller: 'test' };
}
