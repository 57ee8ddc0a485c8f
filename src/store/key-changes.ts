import pg from 'pg';

/** The channel a key's revocation is announced on, in the same statement that revokes it (api-keys.ts). */
export const KEY_CHANGES_CHANNEL = 'sqlgate_api_keys';
/**
 * On the same channel, a payload `limits:<account id>`: that account's spend limits (or one of its keys')
 * changed (store/spend-limits.ts); guardrails forget what they remembered of it.
 */
export const LIMITS_CHANGE = 'limits:';

/**
 * Changes to API keys made by any process on one PostgreSQL store, as they commit. `live` is true while the
 * listening connection is up: only then may a process answer keys from memory, since a change announced
 * while it was down is lost. Each listener gets a key id, or `undefined` for "forget everything" (the
 * connection dropped or came back).
 */
export type KeyChangeFeed = {
  readonly live: boolean;
  subscribe(listener: (keyId: string | undefined) => void): void;
  close(): Promise<void>;
};

/**
 * LISTENs on the store's key channel over a connection of its own, reconnecting by itself (after 100 ms,
 * doubling to 2 s) when it drops. Resolves once the first connection listens, or after `firstWaitMs` without
 * one (the feed then stays not live until it connects).
 */
export const listenKeyChanges = async (url: string, firstWaitMs = 5_000): Promise<KeyChangeFeed> => {
  const listeners: Array<(keyId: string | undefined) => void> = [];
  const emit = (keyId: string | undefined): void => {
    for (const l of listeners) l(keyId);
  };
  let live = false;
  let closed = false;
  let client: pg.Client | undefined;
  let delay = 100;
  let timer: NodeJS.Timeout | undefined;
  let firstDone: () => void = () => undefined;
  const first = new Promise<void>((r) => (firstDone = r));

  const down = (c: pg.Client): void => {
    if (client !== c) return;
    client = undefined;
    if (live) {
      live = false;
      emit(undefined);
    }
    c.end().catch(() => undefined);
    if (!closed) {
      timer = setTimeout(connect, delay);
      delay = Math.min(2_000, delay * 2);
    }
  };
  const connect = (): void => {
    const c = new pg.Client({ connectionString: url, keepAlive: true });
    client = c;
    c.on('error', () => down(c));
    c.on('end', () => down(c));
    c.on('notification', (n) => {
      if (n.channel === KEY_CHANGES_CHANNEL) emit(n.payload || undefined);
    });
    c.connect()
      .then(() => c.query(`LISTEN ${KEY_CHANGES_CHANNEL}`))
      .then(() => {
        if (client !== c) return;
        delay = 100;
        // Changes made while no connection listened are unknown: whatever was remembered goes.
        emit(undefined);
        live = true;
        firstDone();
      })
      .catch(() => down(c));
  };
  connect();
  await Promise.race([first, new Promise((r) => setTimeout(r, firstWaitMs).unref())]);
  return {
    get live() {
      return live;
    },
    subscribe: (l) => void listeners.push(l),
    close: async () => {
      closed = true;
      live = false;
      if (timer) clearTimeout(timer);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
};
