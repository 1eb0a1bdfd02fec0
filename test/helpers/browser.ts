// Headless Chromium (Debian package `chromium`, installed by scripts/setup.sh) driven over the DevTools
// protocol on a pipe (--remote-debugging-pipe: fd 3 in, fd 4 out, NUL-separated JSON), so no WebSocket
// client and no port are needed. A page's console errors, uncaught exceptions and failed loads are
// collected; its DOM is read with Runtime.evaluate; screenshots are PNG files.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';

/** A problem the page reported: a console error, an uncaught exception, a failed load (with its URL). */
/**
 * How long a page (and the server behind it) may take to be ready. A wait returns as soon as it is, so the limit only
 * bounds a hang: beside the full suite a page that is ready in seconds alone took over 30 s (2026-12-07, a
 * fresh-clone CI run, `inspect view`).
 */
export const READY_MS = 120_000;

export interface PageProblem {
  kind: 'console' | 'exception' | 'log';
  text: string;
  url?: string;
}

interface Pending {
  resolve: (v: Record<string, unknown>) => void;
  reject: (e: Error) => void;
  method: string;
}

export function chromiumPath(): string {
  const found = spawnSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).stdout.trim();
  if (!found) throw new Error('headless Chromium not found: install the Debian package chromium (npm run setup does as root)');
  return found;
}

export class Browser {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners: ((method: string, params: Record<string, unknown>, sessionId?: string) => void)[] = [];
  private buffer = '';

  private constructor(
    private readonly child: ChildProcess,
    private readonly profile: string,
  ) {
    const input = child.stdio[4] as Readable;
    input.on('data', (d: Buffer) => {
      this.buffer += d.toString('utf8');
      let i = this.buffer.indexOf('\0');
      while (i >= 0) {
        const msg = JSON.parse(this.buffer.slice(0, i)) as {
          id?: number;
          result?: Record<string, unknown>;
          error?: { message: string };
          method?: string;
          params?: Record<string, unknown>;
          sessionId?: string;
        };
        this.buffer = this.buffer.slice(i + 1);
        if (msg.id !== undefined) {
          const p = this.pending.get(msg.id);
          this.pending.delete(msg.id);
          if (msg.error) p?.reject(new Error(`${p.method}: ${msg.error.message}`));
          else p?.resolve(msg.result ?? {});
        } else if (msg.method) for (const l of this.listeners) l(msg.method, msg.params ?? {}, msg.sessionId);
        i = this.buffer.indexOf('\0');
      }
    });
  }

  static async launch(): Promise<Browser> {
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-chromium-'));
    const args = [
      '--headless=new',
      '--remote-debugging-pipe',
      `--user-data-dir=${profile}`,
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--window-size=1400,1000',
      // As root Chromium refuses its own sandbox; the pages are the project's own files and a local server.
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      'about:blank',
    ];
    const child = spawn(chromiumPath(), args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    const b = new Browser(child, profile);
    await Promise.race([
      b.send('Browser.getVersion'),
      new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`chromium exited (${code}) before answering: ${stderr}`)))),
    ]);
    return b;
  }

  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const out = this.child.stdio[3] as Writable;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      out.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });
  }

  on(listener: (method: string, params: Record<string, unknown>, sessionId?: string) => void): void {
    this.listeners.push(listener);
  }

  /** A new tab with its problems collected from the start. */
  async newPage(): Promise<Page> {
    const { targetId } = (await this.send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
    const { sessionId } = (await this.send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
    const page = new Page(this, sessionId);
    await Promise.all(['Page.enable', 'Runtime.enable', 'Log.enable', 'Network.enable'].map((m) => this.send(m, {}, sessionId)));
    return page;
  }

  async close(): Promise<void> {
    await this.send('Browser.close').catch(() => undefined);
    await new Promise<void>((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      const t = setTimeout(() => {
        this.child.kill('SIGKILL');
        resolve();
      }, 5000);
      this.child.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
    });
    fs.rmSync(this.profile, { recursive: true, force: true });
  }
}

export class Page {
  readonly problems: PageProblem[] = [];
  private loads = 0;
  /** HTTP responses of 400 and above (a missing file served by a server), by URL. */
  readonly failedResponses: { url: string; status: number }[] = [];

  constructor(
    private readonly browser: Browser,
    private readonly sessionId: string,
  ) {
    browser.on((method, p, sid) => {
      if (sid !== sessionId) return;
      if (method === 'Page.loadEventFired') this.loads++;
      else if (method === 'Runtime.consoleAPICalled' && (p.type === 'error' || p.type === 'assert')) {
        const args = (p.args as { value?: unknown; description?: string }[] | undefined) ?? [];
        this.problems.push({ kind: 'console', text: args.map((a) => String(a.value ?? a.description ?? '')).join(' ') });
      } else if (method === 'Runtime.exceptionThrown') {
        const d = p.exceptionDetails as { text?: string; exception?: { description?: string } } | undefined;
        this.problems.push({ kind: 'exception', text: d?.exception?.description ?? d?.text ?? 'exception' });
      } else if (method === 'Log.entryAdded') {
        const e = p.entry as { level?: string; text?: string; url?: string };
        if (e.level === 'error') this.problems.push({ kind: 'log', text: e.text ?? '', ...(e.url ? { url: e.url } : {}) });
      } else if (method === 'Network.responseReceived') {
        const r = p.response as { url: string; status: number };
        if (r.status >= 400) this.failedResponses.push({ url: r.url, status: r.status });
      }
    });
  }

  /** Navigates and waits for the load event (none within the document); throws when the navigation fails (a missing file). */
  async goto(url: string, timeoutMs = READY_MS): Promise<void> {
    const before = this.loads;
    const r = (await this.browser.send('Page.navigate', { url }, this.sessionId)) as { errorText?: string; loaderId?: string };
    if (r.errorText) throw new Error(`could not open ${url}: ${r.errorText}`);
    // A navigation within the document (only the #fragment changed) has no loader and no load event.
    if (!r.loaderId) return;
    const until = Date.now() + timeoutMs;
    while (this.loads === before) {
      if (Date.now() > until) throw new Error(`${url}: no load event within ${timeoutMs} ms`);
      await new Promise((res) => setTimeout(res, 50));
    }
  }

  /** The value of a JavaScript expression in the page (returned by value; a promise is awaited). */
  async evaluate<T>(expression: string): Promise<T> {
    const r = (await this.browser.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, this.sessionId)) as {
      result: { value?: T };
      exceptionDetails?: { text?: string; exception?: { description?: string } };
    };
    if (r.exceptionDetails) throw new Error(`evaluate: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value as T;
  }

  /** Waits until `expression` is truthy in the page; returns its value. */
  async waitFor<T>(expression: string, timeoutMs = READY_MS): Promise<T> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const v = await this.evaluate<T>(expression).catch(() => undefined);
      if (v) return v;
      if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${expression}`);
      await new Promise((res) => setTimeout(res, 200));
    }
  }

  /** A PNG of the whole page (its full height) at `file`. */
  async screenshot(file: string): Promise<void> {
    const r = (await this.browser.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true }, this.sessionId)) as { data: string };
    fs.writeFileSync(file, Buffer.from(r.data, 'base64'));
  }
}
