/** Caches one value for `ttlMs`; concurrent callers share the in-flight load; a failed load is not kept. */
export const ttlCache = <T>(ttlMs: number, load: () => Promise<T>): (() => Promise<T>) => {
  let entry: { value: Promise<T>; expires: number } | undefined;
  return () => {
    const now = Date.now();
    if (entry && entry.expires > now) return entry.value;
    const value = load();
    const current = { value, expires: now + ttlMs };
    entry = current;
    value.catch(() => {
      if (entry === current) entry = undefined;
    });
    return value;
  };
};
