// The one seam between the LLM activity and the scripted mock server. A chat request may say what it is
// about (`ChatRequest.about`: the method an episode or a judgment concerns); a real endpoint never
// receives that. For the mock provider only, it travels as a header the mock server reads, and it keys
// the mock's cache entries (a scripted reply depends on the method, the messages alone do not say which).
/** What a chat call is about (`ChatRequest.about`); only the scripted mock provider receives it. */
export interface ChatSubject {
  methodId: string;
}

export const MOCK_METHOD_HEADER = 'x-pau-method-id';

export interface ProviderExtras {
  /** Extra HTTP headers of the request. */
  headers: Record<string, string>;
  /** Extra fields of the cache key (`mockMethodId`, as the cache keys of mock calls always had). */
  hashFields: Record<string, string | null>;
}

export const NO_EXTRAS: ProviderExtras = { headers: {}, hashFields: {} };

export function mockExtras(about: ChatSubject | undefined): ProviderExtras {
  const id = about?.methodId;
  return { headers: id ? { [MOCK_METHOD_HEADER]: id } : {}, hashFields: { mockMethodId: id ?? null } };
}
