import { AsyncLocalStorage } from 'node:async_hooks';
import { ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';

/**
 * The active OpenTelemetry context across `await`, timers and callbacks, on Node's
 * AsyncLocalStorage: what `@opentelemetry/context-async-hooks`' AsyncLocalStorageContextManager
 * does, without its EventEmitter patching (this package does not depend on it directly).
 * Installed as the global context manager only when none is registered yet (sdk/tracing.ts).
 */
export class AsyncLocalStorageContext implements ContextManager {
  private storage = new AsyncLocalStorage<Context>();

  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(context: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    const call = thisArg === undefined ? fn : (fn.bind(thisArg) as F);
    return this.storage.run(context, call, ...args);
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const fn = target as (...args: unknown[]) => unknown;
    const run = (self: unknown, args: unknown[]) => this.with(context, () => fn.apply(self, args));
    return function (this: unknown, ...args: unknown[]) {
      return run(this, args);
    } as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.storage.disable();
    return this;
  }
}
