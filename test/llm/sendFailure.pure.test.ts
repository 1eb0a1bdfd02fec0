// Which failed requests left for their endpoint (domain/llm/sendFailure.ts): the errors the HTTP client raises
// before it connects (fetch's own, as Node raises them: no socket is opened for these) can never succeed; a
// connection refused or unresolved before the request was written sent nothing; anything else may have.
import { describe, expect, it } from 'vitest';
import { isLoopbackUrl, sendFailureOf } from '../../domain/llm/sendFailure';

/** What the `openai` package throws around a fetch failure: an APIConnectionError whose cause is fetch's TypeError. */
const wrapped = (cause: unknown) => Object.assign(new Error('Connection error.'), { cause });
const errno = (code: string, message: string) => Object.assign(new Error(message), { code });
const fetchError = (url: string) =>
  fetch(url).then(
    () => {
      throw new Error(`${url} answered`);
    },
    (err: unknown) => err,
  );

describe('a failed send', () => {
  it('a port fetch blocks or a scheme it does not speak can never connect, whatever is retried', async () => {
    expect(sendFailureOf(wrapped(await fetchError('http://127.0.0.1:6000/v1/chat/completions')))).toEqual({
      kind: 'neverConnects',
      reason: 'the HTTP client refuses this port (one of the ports fetch blocks)',
    });
    expect(sendFailureOf(wrapped(await fetchError('htp://127.0.0.1:8000/v1')))).toMatchObject({ kind: 'neverConnects' });
    expect(sendFailureOf(wrapped(Object.assign(new TypeError('Invalid URL'), { code: 'ERR_INVALID_URL' })))).toMatchObject({ kind: 'neverConnects' });
  });

  it('a refused or unresolved connection sent nothing; refused is told apart', () => {
    const refused = wrapped(new TypeError('fetch failed', { cause: errno('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:45999') }));
    expect(sendFailureOf(refused)).toEqual({ kind: 'notSent', reason: 'connect ECONNREFUSED 127.0.0.1:45999', refused: true });
    // localhost tried on both families (happy eyeballs): an AggregateError of refusals.
    const both = wrapped(new TypeError('fetch failed', { cause: new AggregateError([errno('ECONNREFUSED', 'connect ECONNREFUSED ::1:45999')]) }));
    expect(sendFailureOf(both)).toMatchObject({ kind: 'notSent', refused: true });
    expect(sendFailureOf(wrapped(new TypeError('fetch failed', { cause: errno('ENOTFOUND', 'getaddrinfo ENOTFOUND api.example') })))).toEqual({
      kind: 'notSent',
      reason: 'getaddrinfo ENOTFOUND api.example',
      refused: false,
    });
  });

  it('a reset, a timeout or an answered error may have been processed: not taken back', () => {
    expect(sendFailureOf(wrapped(new TypeError('fetch failed', { cause: errno('ECONNRESET', 'read ECONNRESET') })))).toBeNull();
    expect(sendFailureOf(new Error('Request timed out.'))).toBeNull();
    expect(sendFailureOf(Object.assign(new Error('500 boom'), { status: 500 }))).toBeNull();
    expect(sendFailureOf('not an error')).toBeNull();
  });

  it('knows a loopback URL', () => {
    for (const u of ['http://127.0.0.1:8000/v1', 'http://localhost:11434/v1', 'http://[::1]:8000/v1', 'http://127.1.2.3/v1'])
      expect(isLoopbackUrl(u), u).toBe(true);
    for (const u of ['https://api.openai.com/v1', 'http://10.0.0.5:8000/v1', 'not a url']) expect(isLoopbackUrl(u), u).toBe(false);
  });
});
