/**
 * A loader for a page extension that, once its chunk is loaded, answers with an already-resolved thenable.
 *
 * PageBlueprint's page component calls `ExtensionBoundary.lazy(node, loader)` in its render, so each render makes a new
 * `React.lazy`, which suspends again while the loader's promise settles (a settled promise still calls back in a
 * microtask). On an in-app navigation React renders the whole changed tree again after each settle, finds a new lazy
 * suspending, and so on until its fallback throttle (500 ms) commits: `yarn bench:ui --trace` counted ~170 loader calls
 * and ~450 ms of re-rendering the app shell before the clusters page asked for its data. `React.lazy` reads
 * a thenable that calls back synchronously at once, so after the first load nothing suspends.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: { value: T } | undefined;
  return () => {
    if (loaded) return resolvedThenable(loaded.value);
    return load().then(value => {
      loaded = { value };
      return value;
    });
  };
}

/**
 * A promise already resolved with `value` whose `then` calls back synchronously (as `React.lazy` reads it); what a
 * callback returns or throws is passed on as `then` would (a thrown error rejects the returned promise).
 */
function resolvedThenable<T>(value: T): Promise<T> {
  const promise = Promise.resolve(value) as Promise<T>;
  promise.then = (<A = T, B = never>(
    onFulfilled?: ((v: T) => A | PromiseLike<A>) | null,
  ): Promise<A | B> => {
    if (!onFulfilled) return promise as unknown as Promise<A | B>;
    try {
      const next = onFulfilled(value);
      return isThenable(next)
        ? Promise.resolve(next)
        : (resolvedThenable(next) as Promise<A | B>);
    } catch (e) {
      return Promise.reject(e);
    }
  }) as Promise<T>['then'];
  return promise;
}

function isThenable<A>(x: A | PromiseLike<A>): x is PromiseLike<A> {
  return typeof (x as { then?: unknown } | null)?.then === 'function';
}
