// rein's workflow prelude: the globals a workflow script sees, over the host's
// `native` calls. Runs once, before the script; written for rein.
(function (native) {
  'use strict';
  const G = globalThis;
  // The script may replace the global; the prelude keeps its own.
  const evaluate = G.eval;

  // A rerun must do the same: the clock and chance throw when called.
  const RealDate = Date;
  const noClock = 'the clock is not available in a workflow (resuming replays the script): pass times in args, or stamp the result after the workflow returns';
  const noChance = 'Math.random() is not available in a workflow (resuming replays the script): for varied samples put the index in each agent prompt or label';
  function FixedDate(...values) {
    if (!new.target || values.length === 0) throw new Error(noClock);
    return Reflect.construct(RealDate, values, new.target);
  }
  FixedDate.prototype = RealDate.prototype;
  FixedDate.UTC = RealDate.UTC;
  FixedDate.parse = RealDate.parse;
  FixedDate.now = function () { throw new Error(noClock); };
  Object.defineProperty(RealDate.prototype, 'constructor', { value: FixedDate, writable: false, configurable: false });
  G.Date = FixedDate;
  Math.random = function () { throw new Error(noChance); };
  delete G.performance;

  let currentPhase = null;
  G.phase = function (title) {
    currentPhase = String(title);
    native.progress('phase', currentPhase);
  };
  G.log = function (message) { native.progress('log', String(message)); };
  const say = (...parts) => native.progress('log', parts.map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join(' '));
  G.console = { log: say, info: say, warn: say, error: say, debug: say };

  G.agent = function (prompt, opts) {
    if (typeof prompt !== 'string') throw new TypeError('agent() takes its prompt as a string');
    const o = opts == null ? {} : opts;
    const phase = o.phase !== undefined ? o.phase : currentPhase;
    return native.agent(prompt, JSON.stringify({
      label: o.label, phase: phase == null ? undefined : String(phase), schema: o.schema,
      model: o.model, agentType: o.agentType, isolation: o.isolation,
    }));
  };

  // All at once, waiting for every one: a failed one is null. A thunk that throws as
  // it is called fails the whole call.
  G.parallel = async function (thunks) {
    if (!Array.isArray(thunks)) throw new TypeError('parallel() takes an array of functions');
    const running = thunks.map((thunk, i) => {
      if (typeof thunk !== 'function') {
        throw new TypeError(`parallel() takes functions (() => agent(...)), not promises: item ${i} is a ${typeof thunk}`);
      }
      return Promise.resolve(thunk()).then((v) => v, () => null);
    });
    return Promise.all(running);
  };

  // Each item through every stage on its own, no waiting between stages; a stage that
  // fails makes its item null and skips the stages after it.
  G.pipeline = async function (items, ...stages) {
    if (!Array.isArray(items)) throw new TypeError('pipeline() takes an array of items first');
    for (const s of stages) if (typeof s !== 'function') throw new TypeError('pipeline() stages are functions');
    return Promise.all(items.map(async (item, index) => {
      let prev = item;
      try {
        for (const stage of stages) prev = await stage(prev, item, index);
        return prev;
      } catch (_) {
        return null;
      }
    }));
  };

  const timers = new Map();
  let nextTimer = 1;
  G.setTimeout = function (fn, ms, ...rest) {
    const id = nextTimer++;
    timers.set(id, true);
    native.sleep(Number(ms) || 0).then(() => {
      if (timers.delete(id) && typeof fn === 'function') fn(...rest);
    });
    return id;
  };
  G.clearTimeout = function (id) { timers.delete(id); };

  G.budget = Object.freeze({
    total: native.total,
    spent: () => native.spent(),
    remaining: () => (native.total == null ? Infinity : Math.max(0, native.total - native.spent())),
  });

  const nested = function () {
    throw new Error('workflow() goes one level deep: a workflow started by another cannot start one; inline its script or call its agents directly');
  };
  G.workflow = async function (ref, args) {
    const key = typeof ref === 'string' ? ref : JSON.stringify(ref);
    const child = (0, evaluate)(native.source(key));
    return child(args, nested);
  };
})
