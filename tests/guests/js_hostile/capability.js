// A misbehaving JavaScript capability component, for the containment tests: whatever a
// JavaScript guest does, the host stops it with the right code and keeps serving. Built by
// `cargo xtask test` with the JavaScript template's entry (app.js) and componentize-js.

import { CapError, Plugin, store } from '../../../sdk/js/camber_sdk.js';

const FACILITY = {
  type: 'object',
  required: ['facility_id'],
  additionalProperties: false,
  properties: { facility_id: { type: 'string' } },
};

export const plugin = new Plugin()
  .capability({
    name: 'js_spin',
    description: 'Loops forever (a JavaScript guest that never returns).',
    handler: () => {
      for (;;) {}
    },
  })
  .capability({
    name: 'js_membomb',
    description: 'Allocates until the memory cap stops it.',
    handler: () => {
      const hoard = [];
      for (;;) hoard.push(new Float64Array(1 << 20));
    },
  })
  .capability({
    name: 'js_raise',
    description: 'Throws an error whose message names a host path.',
    handler: () => {
      throw new TypeError('could not open /home/operator/secrets.csv for reading');
    },
  })
  .capability({
    name: 'js_read_other',
    description: 'Reads a facility the call does not name and swallows the refusal.',
    inputSchema: FACILITY,
    handler: () => {
      try {
        store.points('annex');
      } catch (e) {
        if (!(e instanceof CapError)) throw e;
      }
      return { data: {}, text: 'nothing to see', facts: [] };
    },
  })
  .capability({
    name: 'js_points',
    description: "Counts a facility's stored points.",
    inputSchema: FACILITY,
    handler: (args) => {
      const n = store.points(args.facility_id).length;
      return { data: { count: n }, text: `${n} points [F1@js_points].`, facts: [{ id: 'F1@js_points', kind: 'count', value: n, text: `${n} points` }] };
    },
  })
  .capability({
    name: 'js_noop',
    description: 'Answers at once, reading nothing (the floor of a JavaScript call).',
    handler: () => ({ data: {}, text: 'nothing', facts: [] }),
  })
  .prompt({
    name: 'js_ask',
    title: 'Ask',
    description: 'A prompt from JavaScript.',
    render: (args) => `Tell me about ${args.facility_id ?? 'the building'}.`,
  });
