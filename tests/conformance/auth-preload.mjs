// Preload for the conformance CLI (server mode has no header option): adds
// "Authorization: Bearer $MCP_BEARER_TOKEN" to every outgoing HTTP request.
// Node >= 18's built-in fetch (used by the MCP SDK transport and the SSE scenarios) and
// undici.request (used by dns-rebinding-protection) both use the undici global dispatcher
// (Symbol.for('undici.globalDispatcher.1')), so one interceptor covers all scenarios.
// Use: MCP_BEARER_TOKEN=... NODE_OPTIONS="--import /abs/path/auth-preload.mjs" conformance server --url ...
import { Agent, setGlobalDispatcher } from 'undici';
const token = process.env.MCP_BEARER_TOKEN;
if (token) {
  const value = `Bearer ${token}`;
  const addAuth = (dispatch) => (opts, handler) => {
    const h = opts.headers;
    let headers;
    if (Array.isArray(h)) {
      const has = h.some((v, i) => i % 2 === 0 && String(v).toLowerCase() === 'authorization');
      headers = has ? h : [...h, 'authorization', value];
    } else {
      const has = h && Object.keys(h).some((k) => k.toLowerCase() === 'authorization');
      headers = has ? h : { ...(h || {}), authorization: value };
    }
    return dispatch({ ...opts, headers }, handler);
  };
  setGlobalDispatcher(new Agent().compose(addAuth));
}
