// The lock gate of the iPhone lock model (e2e/listening.py: `lock`, `wake`, `locked`, `press`).
//
// Added by `open_page` (e2e/conftest.py) to every page, before the page's own scripts. Unlocked it
// only passes each callback on. `window.__reverieLock.lock()` closes it: from then on the page's
// callbacks are held, in the order they came, and run at `wake()`, each in a task of its own:
// timers (an interval due many times runs once, at its first place), animation frames, idle
// callbacks, every listener added with addEventListener and every on… handler property (a
// `timeupdate` or `progress` event held again for the same listener is kept once, at its first
// place, with the latest event), the observers' callbacks, and the settlement of the promises of
// network, cache and media calls (fetch, a response's body, the Cache API, play(), decodeAudioData,
// the service worker's ready and registration, storage, locks, wake lock, a stream reader's read).
// What came while held ones still wait at wake goes after them. The lock also suspends every
// AudioContext the page made that was running (its `state` reads "interrupted", as on iOS, and
// resume() waits for the wake); the wake resumes them before the held callbacks run.
//
// Not held (it runs, or settles, while locked): the media element itself (it plays and fetches
// on, with no script), IndexedDB's events (a transaction lives only while its callbacks run; a
// request begun before the lock calls back within milliseconds), a timer given a string of code,
// inline on…="" attributes, dynamic import(), other promises the browser settles (fonts, an
// Animation's finished), the service worker (no page script runs in it), the handlers of the
// lock-screen buttons (`press`), and whatever `page.evaluate` runs.
(() => {
  "use strict";
  if (Object.prototype.hasOwnProperty.call(window, "__reverieLock")) return;

  const define = Object.defineProperty;
  const describe = Object.getOwnPropertyDescriptor;
  const NativePromise = Promise;
  const then = Promise.prototype.then;
  const EventTargetPrototype = EventTarget.prototype;

  // MARK: - The gate

  let locked = false;
  let depth = 0;            // > 0 while script the gate let through runs: what it calls synchronously runs at once
  const held = [];          // { run, key } in the order they came
  const coalesced = new Map();  // key → its held entry not yet run
  let draining = false;
  const channel = new MessageChannel();
  channel.port1.onmessage = runNext;  // set before the on… properties are wrapped: never held itself

  function open() {
    return depth > 0 || (!locked && held.length === 0);
  }

  function hold(run, key) {
    const waiting = key === undefined ? undefined : coalesced.get(key);
    if (waiting) {
      waiting.run = run;
      return;
    }
    const entry = { run, key };
    held.push(entry);
    if (key !== undefined) coalesced.set(key, entry);
    drainSoon();
  }

  /** Runs `run` now when the gate is open, else holds it (replacing a held one of the same `key`). */
  function gate(run, key) {
    if (open()) return run();
    hold(run, key);
  }

  function drainSoon() {
    if (draining || locked || held.length === 0) return;
    draining = true;
    channel.port2.postMessage(null);
  }

  function runNext() {
    draining = false;
    if (locked || held.length === 0) return;
    const entry = held.shift();
    if (entry.key !== undefined && coalesced.get(entry.key) === entry) coalesced.delete(entry.key);
    drainSoon();  // the next one in a task of its own, after this one's microtasks
    depth += 1;
    try {
      entry.run();
    } finally {
      depth -= 1;
    }
  }

  /** What the browser runs synchronously inside a call (dispatchEvent, click(), abort()) runs at once. */
  function synchronous(object, name) {
    const descriptor = object && describe(object, name);
    if (!descriptor || typeof descriptor.value !== "function") return;
    const native = descriptor.value;
    define(object, name, { ...descriptor, value: { [name](...args) {
      depth += 1;
      try {
        return native.apply(this ?? window, args);
      } finally {
        depth -= 1;
      }
    } }[name] });
  }

  const tokens = new WeakMap();  // target → Map(wrapper → the key of its coalesced event)
  function token(target, wrapper) {
    let byWrapper = tokens.get(target);
    if (!byWrapper) tokens.set(target, byWrapper = new Map());
    let key = byWrapper.get(wrapper);
    if (!key) byWrapper.set(wrapper, key = {});
    return key;
  }
  const COALESCED = new Set(["timeupdate", "progress"]);

  /** A held event's listener runs with the currentTarget it had when the event came. */
  function replay(event, target, run) {
    if (event instanceof Event) define(event, "currentTarget", { value: target, configurable: true });
    return run();
  }

  // MARK: - Timers, frames, idle callbacks

  const live = new Set();  // timer ids neither cleared nor (for a timeout) run
  for (const [name, repeats] of [["setTimeout", false], ["setInterval", true]]) {
    const native = window[name];
    window[name] = { [name](handler, timeout, ...args) {
      if (typeof handler !== "function") return native.call(window, handler, timeout, ...args);
      const id = native.call(window, () => gate(() => {
        if (!live.has(id)) return;
        if (!repeats) live.delete(id);
        handler.apply(window, args);
      }, repeats ? `interval ${id}` : undefined), timeout);
      live.add(id);
      return id;
    } }[name];
  }
  for (const name of ["clearTimeout", "clearInterval"]) {
    const native = window[name];
    window[name] = { [name](id) {
      live.delete(id);
      return native.call(window, id);
    } }[name];
  }

  for (const [request, cancel, now] of [["requestAnimationFrame", "cancelAnimationFrame", true],
                                        ["requestIdleCallback", "cancelIdleCallback", false]]) {
    const nativeRequest = window[request], nativeCancel = window[cancel];
    if (!nativeRequest) continue;
    const pending = new Set();
    window[request] = { [request](callback, ...rest) {
      if (typeof callback !== "function") return nativeRequest.call(window, callback, ...rest);
      const id = nativeRequest.call(window, (argument) => {
        if (open()) {
          pending.delete(id);
          return callback(argument);
        }
        // A frame held through the lock runs at the wake's time, not the frame's before it.
        hold(() => pending.delete(id) && callback(now ? performance.now() : argument));
      }, ...rest);
      pending.add(id);
      return id;
    } }[request];
    window[cancel] = { [cancel](id) {
      pending.delete(id);
      return nativeCancel.call(window, id);
    } }[cancel];
  }

  // MARK: - Event listeners and on… handlers

  const nativeAdd = EventTargetPrototype.addEventListener;
  const nativeRemove = EventTargetPrototype.removeEventListener;
  const wrappers = new WeakMap();  // listener → Map("type capture" → its wrapper)
  const attached = new WeakMap();  // target → Set of the wrappers on it

  const captures = (options) => (typeof options === "boolean" ? options : Boolean(options && options.capture));
  const invoke = (listener, target, event) => (typeof listener === "function" ? listener.call(target, event) : listener.handleEvent(event));

  function wrapperOf(listener, type, capture, create) {
    let byKey = wrappers.get(listener);
    if (!byKey) {
      if (!create) return undefined;
      wrappers.set(listener, byKey = new Map());
    }
    const key = `${type} ${capture}`;
    let wrapper = byKey.get(key);
    if (!wrapper && create) {
      wrapper = function (event) {
        const target = this;
        if (open()) return invoke(listener, target, event);
        hold(() => {
          if (attached.get(target)?.has(wrapper)) replay(event, target, () => invoke(listener, target, event));
        }, event && COALESCED.has(event.type) ? token(target, wrapper) : undefined);
      };
      byKey.set(key, wrapper);
    }
    return wrapper;
  }

  // IndexedDB's events are let through: a transaction commits once its callbacks have run without
  // a new request, so a held success handler would find its transaction gone at the wake.
  const PASSED = new Set(["IDBRequest", "IDBOpenDBRequest", "IDBTransaction", "IDBDatabase"]);
  const PASSED_PROTOTYPES = new Set();
  for (const name of PASSED) if (window[name]) PASSED_PROTOTYPES.add(window[name].prototype);
  const passes = (target) => {
    for (let object = target; object; object = Object.getPrototypeOf(object)) if (PASSED_PROTOTYPES.has(object)) return true;
    return false;
  };

  EventTargetPrototype.addEventListener = function addEventListener(type, listener, options) {
    const target = this ?? window;
    if (listener === null || (typeof listener !== "function" && typeof listener !== "object") || passes(target)) {
      return nativeAdd.call(target, type, listener, options);
    }
    const wrapper = wrapperOf(listener, String(type), captures(options), true);
    let on = attached.get(target);
    if (!on) attached.set(target, on = new Set());
    on.add(wrapper);
    const signal = options && typeof options === "object" ? options.signal : undefined;
    if (signal instanceof AbortSignal) nativeAdd.call(signal, "abort", () => on.delete(wrapper), { once: true });
    return nativeAdd.call(target, type, wrapper, options);
  };

  EventTargetPrototype.removeEventListener = function removeEventListener(type, listener, options) {
    const target = this ?? window;
    const wrapper = listener && (typeof listener === "function" || typeof listener === "object") && !passes(target)
      ? wrapperOf(listener, String(type), captures(options), false) : undefined;
    if (!wrapper) return nativeRemove.call(target, type, listener, options);
    attached.get(target)?.delete(wrapper);
    return nativeRemove.call(target, type, wrapper, options);
  };

  if (window.MediaQueryList) {  // the old addListener adds a change listener without addEventListener
    MediaQueryList.prototype.addListener = function addListener(listener) {
      return listener ? this.addEventListener("change", listener) : undefined;
    };
    MediaQueryList.prototype.removeListener = function removeListener(listener) {
      return listener ? this.removeEventListener("change", listener) : undefined;
    };
  }

  const handlers = new WeakMap();   // handler → Map(property → its wrapper)
  const handlerOf = new WeakMap();  // wrapper → handler
  function handlerWrapper(handler, name) {
    let byName = handlers.get(handler);
    if (!byName) handlers.set(handler, byName = new Map());
    let wrapper = byName.get(name);
    if (!wrapper) {
      wrapper = function (...args) {
        const target = this, event = args[0];
        if (open()) return handler.apply(target, args);
        hold(() => {
          if (target[name] === handler) replay(event, target, () => handler.apply(target, args));
        }, event instanceof Event && COALESCED.has(event.type) ? token(target, wrapper) : undefined);
      };
      byName.set(name, wrapper);
      handlerOf.set(wrapper, handler);
    }
    return wrapper;
  }

  function wrapHandlers(object) {
    if (passes(object)) return;
    for (const name of Object.getOwnPropertyNames(object)) {
      if (!name.startsWith("on")) continue;
      const descriptor = describe(object, name);
      if (!descriptor || !descriptor.get || !descriptor.set || !descriptor.configurable) continue;
      const { get, set } = descriptor;
      define(object, name, {
        configurable: true,
        enumerable: descriptor.enumerable,
        get() {
          const value = get.call(this ?? window);
          return (value && handlerOf.get(value)) || value;
        },
        set(value) {
          set.call(this ?? window, typeof value === "function" ? handlerWrapper(value, name) : value);
        },
      });
    }
  }

  wrapHandlers(window);
  for (const name of Object.getOwnPropertyNames(window)) {
    const value = describe(window, name)?.value;
    if (typeof value === "function" && value.prototype && EventTargetPrototype.isPrototypeOf(value.prototype)) {
      wrapHandlers(value.prototype);
    }
  }

  synchronous(EventTargetPrototype, "dispatchEvent");
  for (const name of ["click", "focus", "blur", "showPopover", "hidePopover", "togglePopover"]) synchronous(HTMLElement.prototype, name);
  synchronous(window.SVGElement?.prototype, "focus");
  synchronous(window.SVGElement?.prototype, "blur");
  synchronous(window.AbortController?.prototype, "abort");
  synchronous(window.HTMLFormElement?.prototype, "reset");
  synchronous(window.HTMLFormElement?.prototype, "requestSubmit");

  // MARK: - Observers

  for (const name of ["MutationObserver", "ResizeObserver", "IntersectionObserver", "PerformanceObserver", "ReportingObserver"]) {
    const Native = window[name];
    if (!Native) continue;
    const Gated = class extends Native {
      constructor(callback, ...rest) {
        super(typeof callback === "function"
          ? function (...args) { gate(() => callback.apply(this, args)); }
          : callback, ...rest);
      }
    };
    define(Gated, "name", { value: name });
    define(window, name, { value: Gated, writable: true, configurable: true, enumerable: false });
  }

  // MARK: - Promises the browser settles

  function settle(promise) {
    return new NativePromise((resolve, reject) => {
      then.call(promise, (value) => gate(() => resolve(value)), (error) => gate(() => reject(error)));
    });
  }

  function settled(object, name) {
    const descriptor = object && describe(object, name);
    if (!descriptor || typeof descriptor.value !== "function") return;
    const native = descriptor.value;
    define(object, name, { ...descriptor, value: { [name](...args) {
      const result = native.apply(this ?? window, args);
      return result instanceof NativePromise ? settle(result) : result;
    } }[name] });
  }

  settled(window, "fetch");
  for (const type of [window.Response, window.Request, window.Blob]) {
    for (const name of ["arrayBuffer", "blob", "bytes", "formData", "json", "text"]) settled(type?.prototype, name);
  }
  for (const name of ["match", "has", "open", "delete", "keys"]) settled(window.CacheStorage?.prototype, name);
  for (const name of ["match", "matchAll", "add", "addAll", "put", "delete", "keys"]) settled(window.Cache?.prototype, name);
  settled(HTMLMediaElement.prototype, "play");
  for (const name of ["register", "getRegistration", "getRegistrations"]) settled(window.ServiceWorkerContainer?.prototype, name);
  for (const name of ["update", "unregister", "showNotification", "getNotifications"]) settled(window.ServiceWorkerRegistration?.prototype, name);
  for (const name of ["persist", "persisted", "estimate", "getDirectory"]) settled(window.StorageManager?.prototype, name);
  settled(window.WakeLock?.prototype, "request");
  settled(window.WakeLockSentinel?.prototype, "release");
  settled(window.LockManager?.prototype, "query");
  settled(window.IDBFactory?.prototype, "databases");
  settled(window.Permissions?.prototype, "query");
  settled(window.ReadableStreamDefaultReader?.prototype, "read");
  settled(window.ReadableStreamBYOBReader?.prototype, "read");
  settled(window.Scheduler?.prototype, "yield");

  const ready = window.ServiceWorkerContainer && describe(ServiceWorkerContainer.prototype, "ready");
  if (ready?.get) {
    define(ServiceWorkerContainer.prototype, "ready", { ...ready, get() { return settle(ready.get.call(this)); } });
  }

  if (window.LockManager) {  // request(name, [options,] callback): the callback waits for the gate too
    const request = LockManager.prototype.request;
    LockManager.prototype.request = function (name, ...rest) {
      const index = rest.length - 1, callback = rest[index];
      if (typeof callback === "function") {
        rest[index] = (lock) => new NativePromise((resolve, reject) => gate(() => {
          try {
            resolve(callback(lock));
          } catch (error) {
            reject(error);
          }
        }));
      }
      return settle(request.call(this, name, ...rest));
    };
  }

  if (window.Scheduler?.prototype.postTask) {
    const postTask = Scheduler.prototype.postTask;
    Scheduler.prototype.postTask = function (callback, ...rest) {
      return settle(postTask.call(this, typeof callback === "function"
        ? () => new NativePromise((resolve, reject) => gate(() => {
          try {
            resolve(callback());
          } catch (error) {
            reject(error);
          }
        }))
        : callback, ...rest));
    };
  }

  // MARK: - Audio contexts: "interrupted" while locked

  const contexts = [];          // WeakRefs of every AudioContext the page made
  const interrupted = new Set(); // the ones the lock suspended (or that asked to resume while locked)
  const resumes = [];           // resume() calls made while locked: they settle at the wake
  const NativeAudioContext = window.AudioContext;
  let nativeResume, nativeSuspend, stateOf;
  if (NativeAudioContext) {
    const prototype = NativeAudioContext.prototype;
    nativeResume = prototype.resume;
    nativeSuspend = prototype.suspend;
    stateOf = describe(BaseAudioContext.prototype, "state").get;
    const Tracked = class extends NativeAudioContext {
      constructor(...args) {
        super(...args);
        contexts.push(new WeakRef(this));
        if (locked) interrupt([this]);
      }
    };
    define(Tracked, "name", { value: "AudioContext" });
    const webkit = window.webkitAudioContext === NativeAudioContext;
    define(window, "AudioContext", { value: Tracked, writable: true, configurable: true, enumerable: false });
    if (webkit) define(window, "webkitAudioContext", { value: Tracked, writable: true, configurable: true, enumerable: false });
    prototype.resume = function resume() {
      if (!locked) return nativeResume.call(this);
      if (stateOf.call(this) === "closed") return nativeResume.call(this);
      interrupted.add(this);
      return new NativePromise((resolve, reject) => resumes.push({ resolve, reject }));
    };
    prototype.suspend = function suspend() {
      interrupted.delete(this);
      return nativeSuspend.call(this);
    };
    define(BaseAudioContext.prototype, "state", {
      configurable: true,
      enumerable: true,
      get() {
        return locked && interrupted.has(this) ? "interrupted" : stateOf.call(this);
      },
    });
  }

  function running() {
    return contexts.map((reference) => reference.deref()).filter((context) => context && stateOf.call(context) === "running");
  }

  function interrupt(list) {
    for (const context of list) interrupted.add(context);
    return NativePromise.all(list.map((context) => nativeSuspend.call(context)));
  }

  // MARK: - The lock screen's buttons

  const actions = new Map();
  if (window.MediaSession) {
    const setActionHandler = MediaSession.prototype.setActionHandler;
    MediaSession.prototype.setActionHandler = function (action, handler) {
      if (typeof handler === "function") actions.set(action, handler);
      else actions.delete(action);
      return setActionHandler.call(this, action, handler);
    };
  }

  // MARK: - The switch

  /** `interruptAudio`: suspend the page's AudioContexts, as iOS does (Android and desktop
   *  browsers keep Web Audio running on a locked screen: a page modelling one passes false). */
  async function lock({ interruptAudio = true } = {}) {
    if (locked) return 0;
    locked = true;
    const suspended = NativeAudioContext && interruptAudio ? running() : [];
    await interrupt(suspended);
    return suspended.length;
  }

  async function wake() {
    if (!locked) return 0;
    const list = [...interrupted].filter((context) => stateOf.call(context) !== "closed");
    interrupted.clear();
    await NativePromise.all(list.map((context) => then.call(nativeResume.call(context), null, () => {})));
    locked = false;
    for (const { resolve } of resumes.splice(0)) resolve();
    const waiting = held.length;
    drainSoon();
    return waiting;
  }

  /** Runs the page's handler of a lock-screen button (`play`, `pause`, `nexttrack`, …) now. */
  function press(action, details = {}) {
    const handler = actions.get(action);
    if (!handler) throw new Error(`the page set no handler for the lock screen's ${action}`);
    depth += 1;
    try {
      handler({ ...details, action });
    } finally {
      depth -= 1;
    }
    return true;
  }

  define(window, "__reverieLock", {
    value: Object.freeze({
      lock, wake, press,
      get locked() { return locked; },
      get held() { return held.length; },
    }),
  });
})();
