/**
 * A small pool of Snowflake sessions: at most `max` open, idle ones reused (most recent first) and closed after
 * `idleMs`. Ours rather than the driver's `createPool`, whose factory replaces a failed login's error with a
 * bare `Error(message)`: the error code (390100 wrong password, 401001 unreachable) is what maps the failure.
 *
 * @example const pool = sessionPool({ max: 4, idleMs: 600_000, open: () => login(), close: (c) => logout(c) });
 */
export type SessionPool<C> = {
  acquire(): Promise<C>;
  /** Back to the pool; `broken` closes it instead (a session that saw a network failure). */
  release(conn: C, broken?: boolean): void;
  /** Closes every session; waiting and later `acquire` calls fail. */
  close(): Promise<void>;
};

export const sessionPool = <C>(o: {
  readonly max: number;
  readonly idleMs: number;
  readonly open: () => Promise<C>;
  readonly close: (conn: C) => Promise<void>;
}): SessionPool<C> => {
  const idle: Array<{ conn: C; timer: NodeJS.Timeout }> = [];
  const waiting: Array<{ resolve: (c: C) => void; reject: (e: unknown) => void }> = [];
  let open = 0;
  let closed = false;

  const create = (): Promise<C> => {
    open++;
    return o.open().catch((e: unknown) => {
      open--;
      throw e;
    });
  };
  const drop = (conn: C): void => {
    open--;
    void o.close(conn).catch(() => undefined);
    // A slot freed: the next waiting caller gets a new session.
    const next = waiting.shift();
    if (next) create().then(next.resolve, next.reject);
  };
  return {
    acquire: () => {
      if (closed) return Promise.reject(new Error('the Snowflake session pool is closed'));
      const reused = idle.pop();
      if (reused) {
        clearTimeout(reused.timer);
        return Promise.resolve(reused.conn);
      }
      if (open < o.max) return create();
      return new Promise<C>((resolve, reject) => waiting.push({ resolve, reject }));
    },
    release: (conn, broken = false) => {
      if (broken || closed) return drop(conn);
      const next = waiting.shift();
      if (next) return next.resolve(conn);
      const timer = setTimeout(() => {
        const i = idle.findIndex((x) => x.conn === conn);
        if (i >= 0) {
          idle.splice(i, 1);
          drop(conn);
        }
      }, o.idleMs);
      timer.unref();
      idle.push({ conn, timer });
    },
    close: async () => {
      closed = true;
      for (const w of waiting.splice(0)) w.reject(new Error('the Snowflake session pool is closed'));
      const all = idle.splice(0);
      for (const x of all) clearTimeout(x.timer);
      open -= all.length;
      await Promise.all(all.map((x) => o.close(x.conn).catch(() => undefined)));
    },
  };
};
